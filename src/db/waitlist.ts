// The early-access waitlist, in the control database.

import { and, asc, eq, gt, or } from "drizzle-orm";
import { db, type Database } from "./client";
import { waitlist } from "./control-schema";

/** Adds an address; a repeated one is kept once, as it was first sent. */
export const joinWaitlist = (d1: Database, entry: { email: string; role: string | null; createdAt: string }) =>
  db(d1).insert(waitlist).values(entry).onConflictDoNothing().run();

/** One page of the waitlist, oldest first, after the entry at `after` (its created_at and e-mail). */
export function listWaitlist(d1: Database, after: [string, string] | null, limit: number) {
  const later = after && or(gt(waitlist.createdAt, after[0]), and(eq(waitlist.createdAt, after[0]), gt(waitlist.email, after[1])));
  return db(d1)
    .select()
    .from(waitlist)
    .where(later ?? undefined)
    .orderBy(asc(waitlist.createdAt), asc(waitlist.email))
    .limit(limit)
    .all();
}
