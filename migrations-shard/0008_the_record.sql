-- The shard is the agent's record (docs/architecture.md): the agent row keeps the chain head, the
-- object's state and the outbox cursor; entries keep a keyed change's answer, a receipt id and what
-- the entry tells. WITHOUT ROWID written by hand (drizzle-kit has no option for it).
CREATE TABLE `challenges` (
	`sid` text NOT NULL,
	`token` text NOT NULL,
	`kind` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`sid`, `token`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `disputes` (
	`sid` text NOT NULL,
	`id` integer NOT NULL,
	`status` text NOT NULL,
	`dispute` text NOT NULL,
	PRIMARY KEY(`sid`, `id`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `agents` ADD `chain_hash` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `state` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `published` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `contract` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `entries` ADD `idem` text;--> statement-breakpoint
ALTER TABLE `entries` ADD `answer` text;--> statement-breakpoint
ALTER TABLE `entries` ADD `jti` text;--> statement-breakpoint
ALTER TABLE `entries` ADD `outbox` text;