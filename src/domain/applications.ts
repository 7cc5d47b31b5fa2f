// Operator applications: submitted through POST /apply, then approved or rejected by an admin.

export const APPLICATION_STATUSES = ["pending", "approved", "rejected"] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
