-- Frees a lock whoever holds it, and tells waiters.
-- KEYS[1] the lock hash, KEYS[2 ...] other keys of its holders (a read/write lock's readers' lease ends)
-- ARGV[1] how many holder keys follow the hash, ARGV[2] 1 to announce with SPUBLISH (sharded
-- pub/sub), else PUBLISH, ARGV[3 ...] the channels its waiters wait on
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns 1 when a lock was freed, 0 when it was not locked.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
for i = 2, #KEYS do
  redis.call('del', KEYS[i])
end
for i = 3, #ARGV do
  publish(ARGV[2], ARGV[i], 'released')
end
return 1
