ALTER TABLE `agents` ADD `similar_to_cautioned` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `agents_fingerprint` ON `agents` (`fingerprint`);