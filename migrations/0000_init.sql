CREATE TABLE `agents` (
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
	`updated_at` text NOT NULL,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `agents_operator` ON `agents` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` integer NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_operator` ON `api_keys` (`operator_id`);--> statement-breakpoint
CREATE TABLE `applications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`company` text,
	`reason` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`operator_id` integer,
	`created_at` text NOT NULL,
	`decided_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `applications_email` ON `applications` (`email`);--> statement-breakpoint
CREATE INDEX `applications_status` ON `applications` (`status`,`id`);--> statement-breakpoint
CREATE TABLE `challenges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sid` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `challenges_token` ON `challenges` (`token_hash`);--> statement-breakpoint
CREATE INDEX `challenges_sid` ON `challenges` (`sid`);--> statement-breakpoint
CREATE TABLE `config_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sid` text NOT NULL,
	`fingerprint` text NOT NULL,
	`model_provider` text NOT NULL,
	`model_name` text NOT NULL,
	`change_type` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `config_history_sid` ON `config_history` (`sid`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`operator_id` integer NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`response` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`operator_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_records` (`created_at`);--> statement-breakpoint
CREATE TABLE `operators` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`verified` integer DEFAULT false NOT NULL,
	`tier` text DEFAULT 'free' NOT NULL,
	`rate_limit_per_minute` integer,
	`rate_limit_per_day` integer,
	`agent_evidence` real DEFAULT 0 NOT NULL,
	`agent_weighted_composite` real DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operators_email` ON `operators` (`email`);--> statement-breakpoint
CREATE TABLE `score_events` (
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
CREATE INDEX `score_events_sid` ON `score_events` (`sid`,`id`);--> statement-breakpoint
CREATE TABLE `transactions` (
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
CREATE INDEX `transactions_sid_outcome` ON `transactions` (`sid`,`outcome`);--> statement-breakpoint
CREATE INDEX `transactions_reporter` ON `transactions` (`sid`,`reporter_operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `waitlist` (
	`email` text PRIMARY KEY NOT NULL,
	`role` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
