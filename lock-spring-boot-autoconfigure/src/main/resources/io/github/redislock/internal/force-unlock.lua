-- Frees a lock whoever holds it, and tells waiters.
-- KEYS[1] the lock hash, KEYS[2...] other keys of its holders (a read/write lock's readers' lease ends)
-- ARGV the channels its waiters wait on
-- Returns 1 when a lock was freed, 0 when it was not locked.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
for i = 2, #KEYS do
  redis.call('del', KEYS[i])
end
for i = 1, #ARGV do
  redis.call('publish', ARGV[i], 'released')
end
return 1
