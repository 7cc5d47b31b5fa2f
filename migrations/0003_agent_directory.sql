CREATE TABLE `agent_directory` (
	`num` integer PRIMARY KEY NOT NULL,
	`sid` text NOT NULL,
	`shard` integer NOT NULL,
	`operator_id` integer,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_directory_sid` ON `agent_directory` (`sid`);--> statement-breakpoint
CREATE INDEX `agent_directory_operator` ON `agent_directory` (`operator_id`,`num`);--> statement-breakpoint
-- Agents registered before sharding live on shard 0, which on such a deployment is this very
-- database: number them from 1024 in registration order.
INSERT INTO `agent_directory` (`num`, `sid`, `shard`, `operator_id`, `created_at`)
SELECT 1023 + row_number() OVER (ORDER BY `created_at`, `sid`), `sid`, 0, `operator_id`, `created_at` FROM `agents`;
