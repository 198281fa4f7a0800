-- Frees a lock whoever holds it, and tells waiters.
-- KEYS[1] the lock hash; ARGV[1] the lock's release channel
-- Returns 1 when a lock was freed, 0 when it was not locked.
if redis.call('del', KEYS[1]) == 1 then
  redis.call('publish', ARGV[1], 'released')
  return 1
end
return 0
