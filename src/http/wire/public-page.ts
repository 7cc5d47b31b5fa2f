// The owner's setting of its agent's public page: the same payload in both forms.
import { z } from "@hono/zod-openapi";
import { sid } from "./common";

export const publicProfileSchema = z
  .object({
    sid,
    public_profile: z.boolean().openapi({
      description: "true: the public page also shows the reasons in plain words, the five dimensions, the score history and open disputes",
    }),
    page_url: z.string().openapi({
      description: "The agent's public page (send Accept: text/html, as a browser does)",
      example: "https://trust.example.com/agents/SID-0x3f9a0c1d2e4b5a69",
    }),
  })
  .openapi("PublicProfile");

export const publicProfileView = (agentSid: string, publicProfile: boolean, origin: string): z.infer<typeof publicProfileSchema> => ({
  sid: agentSid,
  public_profile: publicProfile,
  page_url: `${origin}/agents/${agentSid}`,
});
