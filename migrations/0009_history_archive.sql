CREATE TABLE `history_archive` (
	`id` integer PRIMARY KEY NOT NULL,
	`after_num` integer NOT NULL,
	`updated_at` text NOT NULL
);
