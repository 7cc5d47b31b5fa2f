CREATE TABLE `disputes` (
	`id` integer PRIMARY KEY NOT NULL,
	`sid` text NOT NULL,
	`owner_operator_id` integer NOT NULL,
	`reporter_operator_id` integer NOT NULL,
	`status` text NOT NULL,
	`reason` text NOT NULL,
	`statement` text,
	`opened_at` text NOT NULL,
	`respond_by` text NOT NULL,
	`resolved_at` text,
	`outcome` text,
	`resolved_by` text,
	`reporter_note` text,
	`admin_note` text
);
--> statement-breakpoint
CREATE INDEX `disputes_owner` ON `disputes` (`owner_operator_id`,`id`);--> statement-breakpoint
CREATE INDEX `disputes_reporter` ON `disputes` (`reporter_operator_id`,`id`);--> statement-breakpoint
CREATE INDEX `disputes_status` ON `disputes` (`status`,`id`);--> statement-breakpoint
CREATE INDEX `disputes_sid` ON `disputes` (`sid`,`status`);--> statement-breakpoint
CREATE TABLE `reporter_withdrawals` (
	`transaction_id` integer PRIMARY KEY NOT NULL,
	`operator_id` integer NOT NULL,
	`withdrawn_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reporter_withdrawals_operator` ON `reporter_withdrawals` (`operator_id`,`withdrawn_at`);--> statement-breakpoint
ALTER TABLE `operators` ADD `penalty_until` text;