// The admin interface's payloads (the same in both forms: admins are not API clients).
import { z } from "@hono/zod-openapi";
import { APPLICATION_STATUSES, type ApplicationStatus } from "../../domain/applications";
import { TIER_NAMES, type Tier } from "../../domain/limits";
import { WAITLIST_ROLES, type WaitlistRole } from "../../domain/waitlist";
import { timestamp } from "./common";

const application = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    company: z.string().nullable(),
    reason: z.string().nullable(),
    status: z.enum(APPLICATION_STATUSES),
    created_at: timestamp,
  })
  .openapi("Application");

const operator = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    tier: z.enum(TIER_NAMES),
    verified: z.boolean(),
    rate_limit_per_minute: z.number().int().nullable(),
    rate_limit_per_day: z.number().int().nullable(),
    created_at: timestamp,
  })
  .openapi("AdminOperator");

const waitlistEntry = z.object({ email: z.string(), role: z.enum(WAITLIST_ROLES).nullable(), created_at: timestamp }).openapi("WaitlistEntry");

interface ApplicationRow {
  id: number;
  name: string;
  email: string;
  company: string | null;
  reason: string | null;
  status: ApplicationStatus;
  createdAt: string;
}
interface OperatorRow {
  id: number;
  name: string;
  email: string;
  tier: Tier;
  verified: boolean;
  rateLimitPerMinute: number | null;
  rateLimitPerDay: number | null;
  createdAt: string;
}

interface WaitlistRow {
  email: string;
  /** Checked against WAITLIST_ROLES by POST /waitlist, its only writer. */
  role: string | null;
  createdAt: string;
}

export const admin = {
  schemas: { application, operator, waitlistEntry },
  application: (a: ApplicationRow): z.infer<typeof application> => ({
    id: a.id,
    name: a.name,
    email: a.email,
    company: a.company,
    reason: a.reason,
    status: a.status,
    created_at: a.createdAt,
  }),
  operator: (o: OperatorRow): z.infer<typeof operator> => ({
    id: o.id,
    name: o.name,
    email: o.email,
    tier: o.tier,
    verified: o.verified,
    rate_limit_per_minute: o.rateLimitPerMinute,
    rate_limit_per_day: o.rateLimitPerDay,
    created_at: o.createdAt,
  }),
  waitlistEntry: (w: WaitlistRow): z.infer<typeof waitlistEntry> => ({ email: w.email, role: w.role as WaitlistRole | null, created_at: w.createdAt }),
};
