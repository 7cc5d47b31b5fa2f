// The early-access waitlist (Form B): who asked, and in what role.

export const WAITLIST_ROLES = ["operator", "platform", "developer", "other"] as const;
export type WaitlistRole = (typeof WAITLIST_ROLES)[number];
