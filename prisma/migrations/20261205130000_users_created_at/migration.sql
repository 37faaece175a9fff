-- The console's crowd section counts accounts created in the last 24 hours (issue #42 item 5):
-- a range on this index instead of a scan of every user at each reading.
-- CreateIndex
CREATE INDEX `users_created_at_idx` ON `users`(`created_at`);
