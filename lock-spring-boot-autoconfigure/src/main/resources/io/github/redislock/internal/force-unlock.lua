-- Frees a lock whoever holds it, and tells waiters.
-- KEYS[1] the lock hash, KEYS[2 ... 1 + ARGV[1]] other keys of its holders (a read/write lock's readers'
-- lease ends), then the channels its waiters wait on
-- ARGV[1] how many holder keys follow the hash, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else
-- PUBLISH
-- Returns 1 when a lock was freed, 0 when it was not locked.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
local holders = 1 + tonumber(ARGV[1])
for i = 2, holders do
  redis.call('del', KEYS[i])
end
for i = holders + 1, #KEYS do
  redis.call(ARGV[2] == '1' and 'spublish' or 'publish', KEYS[i], 'released')
end
return 1
