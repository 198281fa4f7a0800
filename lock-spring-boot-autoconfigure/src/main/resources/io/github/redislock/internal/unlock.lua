-- Releases one hold of a lock; frees it, and tells waiters, when the last hold goes.
-- KEYS[1] the lock hash
-- ARGV[1] owner, ARGV[2] the lock's release channel, ARGV[3] the holds this owner believes it has
-- Returns the holds left (> 0), 0 when the lock became free, -1 when this owner holds no lock here
-- (its lease ran out, or the lock was force-unlocked).
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return -1
end
-- The owner's own count is the truth, as in lock.lua: the stored one is higher when a nested acquire
-- ran here but its reply never reached the owner, and decrementing that would leave the lock held.
local left = tonumber(ARGV[3]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], ARGV[1], left)
  return left
end
redis.call('del', KEYS[1])
redis.call('publish', ARGV[2], 'released')
return 0
