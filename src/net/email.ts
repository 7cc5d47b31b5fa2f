// E-mails a newly issued API key through the Workers `send_email` binding.

export type KeyEmailReason = "approval" | "recovery";

const INTRO: Record<KeyEmailReason, string> = {
  approval: "your application was approved. Your API key:",
  recovery: "a service administrator issued a recovery key for your account. Your new API key:",
};

export async function emailKey(email: SendEmail, from: string, to: { address: string; name: string }, key: string, reason: KeyEmailReason) {
  await email.send({
    from,
    to: to.address,
    subject: "Your agent trust service API key",
    text: `Hello ${to.name},\n\n${INTRO[reason]}\n\n${key}\n\n` + "It is shown only this once. Keep it on a server, never in client code or version control.\n",
  });
}
