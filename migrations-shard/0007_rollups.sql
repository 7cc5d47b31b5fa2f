CREATE TABLE `rollups` (
	`day` integer NOT NULL,
	`sid` text NOT NULL,
	`reporter` integer NOT NULL,
	`owner` integer,
	`reports` integer NOT NULL,
	`receipted` integer NOT NULL,
	`established` integer NOT NULL,
	`net` text NOT NULL,
	`receipted_net` text NOT NULL,
	PRIMARY KEY(`day`, `sid`, `reporter`)
) WITHOUT ROWID;
