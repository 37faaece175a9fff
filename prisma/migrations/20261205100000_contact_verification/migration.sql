-- Verified contacts (issue #42): when the shopper followed the link mailed to their email; NULL until then.
ALTER TABLE `users` ADD COLUMN `contact_verified_at` DATETIME(3) NULL;
