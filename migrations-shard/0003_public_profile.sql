-- Every agent's public page starts with the reduced public score; its owner opts in to show more
-- (PUT /agents/{sid}/public-profile).
ALTER TABLE `agents` ADD `public_profile` integer DEFAULT false NOT NULL;