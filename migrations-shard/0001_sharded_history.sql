ALTER TABLE `agents` ADD `dir_num` integer;--> statement-breakpoint
ALTER TABLE `agents` ADD `identity_key` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `model_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `confidence` text DEFAULT 'low' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `recommendation` text DEFAULT 'review' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `independent_evidence` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `independent_composite` integer DEFAULT 500 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `config_history` ADD `seq` integer;--> statement-breakpoint
ALTER TABLE `config_history` ADD `changes` text;--> statement-breakpoint
CREATE UNIQUE INDEX `config_history_sid_seq` ON `config_history` (`sid`,`seq`) WHERE seq IS NOT NULL;--> statement-breakpoint
ALTER TABLE `score_events` ADD `seq` integer;--> statement-breakpoint
ALTER TABLE `score_events` ADD `transaction_id` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `score_events_sid_seq` ON `score_events` (`sid`,`seq`) WHERE seq IS NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `seq` integer;--> statement-breakpoint
ALTER TABLE `transactions` ADD `base` real;--> statement-breakpoint
ALTER TABLE `transactions` ADD `damping` real;--> statement-breakpoint
ALTER TABLE `transactions` ADD `evidence_factor` real DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `penalty` real DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `evidence` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_sid_seq` ON `transactions` (`sid`,`seq`) WHERE seq IS NOT NULL;