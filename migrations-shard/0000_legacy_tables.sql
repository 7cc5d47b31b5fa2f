-- The tables of the service before sharding. IF NOT EXISTS: on a deployment from before sharding,
-- shard 0 is the old database itself, where these tables already hold the agents and their history.
CREATE TABLE IF NOT EXISTS `agents` (
	`sid` text PRIMARY KEY NOT NULL,
	`operator_id` integer,
	`name` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`model_provider` text NOT NULL,
	`model_name` text NOT NULL,
	`system_prompt_hash` text,
	`tools` text DEFAULT '[]' NOT NULL,
	`memory_config` text,
	`fingerprint` text NOT NULL,
	`config_version` integer DEFAULT 1 NOT NULL,
	`last_config_change_at` text NOT NULL,
	`identity_level` integer DEFAULT 0 NOT NULL,
	`claim_token_hash` text,
	`evidence` text NOT NULL,
	`reporters` text DEFAULT '{}' NOT NULL,
	`composite` integer DEFAULT 500 NOT NULL,
	`evidence_total` real DEFAULT 0 NOT NULL,
	`outcome_counts` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `agents_operator` ON `agents` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `config_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sid` text NOT NULL,
	`fingerprint` text NOT NULL,
	`model_provider` text NOT NULL,
	`model_name` text NOT NULL,
	`change_type` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `config_history_sid` ON `config_history` (`sid`,`id`);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `score_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sid` text NOT NULL,
	`event_type` text NOT NULL,
	`composite` integer NOT NULL,
	`reliability` integer NOT NULL,
	`quality` integer NOT NULL,
	`financial` integer NOT NULL,
	`security` integer NOT NULL,
	`stability` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `score_events_sid` ON `score_events` (`sid`,`id`);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `transactions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sid` text NOT NULL,
	`reporter_operator_id` integer NOT NULL,
	`transaction_type` text NOT NULL,
	`outcome` text NOT NULL,
	`reliability_signal` integer,
	`quality_signal` integer,
	`financial_signal` integer,
	`security_signal` integer,
	`weight` real NOT NULL,
	`metadata` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`sid`) REFERENCES `agents`(`sid`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `transactions_sid_outcome` ON `transactions` (`sid`,`outcome`);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `transactions_reporter` ON `transactions` (`sid`,`reporter_operator_id`,`created_at`);