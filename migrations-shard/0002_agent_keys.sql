CREATE TABLE `agent_keys` (
	`sid` text NOT NULL,
	`thumbprint` text NOT NULL,
	`jwk` text NOT NULL,
	`directory_url` text,
	`added_at` text NOT NULL,
	PRIMARY KEY(`sid`, `thumbprint`)
);
--> statement-breakpoint
ALTER TABLE `agents` ADD `callback_verified` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- Agents already at identity level 1 or 2 before keys existed passed the callback challenge.
UPDATE `agents` SET `callback_verified` = 1 WHERE `identity_level` >= 1;
