-- A writer stopped waiting without the lock (its wait ended, it was interrupted or cancelled): its mark
-- no longer keeps new readers out (see write-lock.lua).
-- KEYS[1] the writers waiting
-- ARGV[1] owner, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[3] the channel
-- readers wait on
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns 1 when its mark was there, else 0.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local marks = redis.call('zcard', KEYS[1])
if redis.call('zrem', KEYS[1], ARGV[1]) == 0 then
  return 0
end
-- the readers it kept out may come in, unless another writer waits too
if marks == 1 then
  publish(ARGV[2], ARGV[3], 'released')
end
return 1
