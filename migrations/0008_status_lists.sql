ALTER TABLE `agent_directory` ADD `status_list` integer;--> statement-breakpoint
ALTER TABLE `agent_directory` ADD `status_idx` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `agent_directory_status` ON `agent_directory` (`status_list`,`status_idx`);