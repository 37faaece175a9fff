-- Waiting room (issue #31): places admitted per second (0 = no room), how early arrivals are
-- ordered, and the proof-of-work challenge before buying (only with a room).
ALTER TABLE `sales` ADD COLUMN `admission_rate` INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN `arrival_order` ENUM('RANDOM', 'ARRIVAL') NOT NULL DEFAULT 'RANDOM',
    ADD COLUMN `purchase_challenge` BOOLEAN NOT NULL DEFAULT false;
