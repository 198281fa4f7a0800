-- Releases one read hold of a read/write lock (see read-lock.lua), in O(1).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends
-- ARGV[1] owner, ARGV[2] the read holds this owner believes it has, ARGV[3] 1 to announce with SPUBLISH
-- (sharded pub/sub), else PUBLISH, ARGV[4] the channel writers wait on,
-- ARGV[5] milliseconds left of the read's minimum hold (holdAtLeast) after the owner's last read hold, as
-- the client counted it from the grant's reply, 0 for none: writers are kept out for that long from now
-- (field "kept-read", see read-lock.lua); other readers may come in. No end on the server's clock is
-- passed, as write-unlock.lua takes one: a reader's token is its read phase's, which may have begun long
-- before this reader's grant
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when this owner no longer reads, NOT_HELD (-1) when it held no read hold here.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local field = 'r:' .. ARGV[1]
if redis.call('hexists', KEYS[1], field) == 0 then
  return NOT_HELD
end
local left = tonumber(ARGV[2]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], field, left)
  return left
end
redis.call('hdel', KEYS[1], field)
local keep = tonumber(ARGV[5])
local micros
if keep > 0 then
  micros = select(2, clock())
  -- in microseconds, as read-lock.lua and write-lock.lua compare it
  local kept = micros + keep * 1000
  if tonumber(redis.call('hget', KEYS[1], 'kept-read') or '0') < kept then
    redis.call('hset', KEYS[1], 'kept-read', kept)
  end
  if redis.call('pttl', KEYS[1]) < keep then
    redis.call('pexpire', KEYS[1], keep)
  end
end
-- the owner's lease end stays in KEYS[2]: a later purge finds no hold and drops it, or it goes with the key
if redis.call('hincrby', KEYS[1], 'rn', -1) > 0 then
  return 0
end
if redis.call('hexists', KEYS[1], 'writer') == 1 then
  -- the last reader was the writer itself (it downgraded and still writes)
  redis.call('hdel', KEYS[1], 'rn', 'rt')
  return 0
end
-- nobody holds it: gone, unless a minimum hold (this one, or a write's: see write-unlock.lua) keeps it
local kept = redis.call('hmget', KEYS[1], 'kept-write', 'kept-read')
local ends = math.max(tonumber(kept[1] or '0'), tonumber(kept[2] or '0'))
if ends > 0 and not micros then
  micros = select(2, clock())
end
if ends > 0 and ends > micros then
  -- field by field, never deleted and made again (see unlock.lua); it ends with its expiry
  redis.call('hdel', KEYS[1], 'rn', 'rt', 'readers-waiting', 'read-turn')
  redis.call('pexpire', KEYS[1], math.ceil((ends - micros) / 1000))
  redis.call('del', KEYS[2])
else
  redis.call('del', KEYS[1], KEYS[2])
end
publish(ARGV[3], ARGV[4], 'released')
return 0
