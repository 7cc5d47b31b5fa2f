-- WITHOUT ROWID (written by hand: drizzle-kit has no option for it): the primary key is the table, so
-- an entry writes one row and no index.
CREATE TABLE `entries` (
	`sid` text NOT NULL,
	`n` integer NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`operator` integer,
	`status` text,
	`ref` integer,
	`body` text NOT NULL,
	`hash` text NOT NULL,
	`salt` text,
	`private` text,
	PRIMARY KEY(`sid`, `n`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `entries_ref` ON `entries` (`ref`) WHERE ref IS NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `history_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `owner_local` integer;