-- One vote per (agent, reporter) pair (scoring model version 4), read by the cross-agent job.
-- WITHOUT ROWID written by hand (drizzle-kit has no option for it).
CREATE TABLE `pairs` (
	`sid` text NOT NULL,
	`reporter` text NOT NULL,
	`operator_id` integer NOT NULL,
	`vote` integer NOT NULL,
	`first_at` integer NOT NULL,
	`receipt_day` integer NOT NULL,
	`pair` text NOT NULL,
	PRIMARY KEY(`sid`, `reporter`)
) WITHOUT ROWID;
