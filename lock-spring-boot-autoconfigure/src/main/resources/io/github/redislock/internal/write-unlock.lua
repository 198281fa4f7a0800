-- Releases one write hold of a read/write lock (see read-lock.lua).
-- KEYS[1] the lock hash, KEYS[2] the readers' lease ends
-- ARGV[1] owner, ARGV[2] the write holds this owner believes it has, ARGV[3] 1 to announce with SPUBLISH
-- (sharded pub/sub), else PUBLISH, ARGV[4] how long the readers kept out while it wrote may come
-- in ahead of the writers waiting (ms): so that a stream of writers cannot starve them, ARGV[5] the
-- channel readers wait on, ARGV[6] the channel writers wait on,
-- ARGV[7] milliseconds the write must stay taken after the last hold (holdAtLeast), 0 for none: then
-- it is kept for nobody until that has passed (field "kept-write", see read-lock.lua),
-- ARGV[8] when ARGV[7] > 0: the time of this server's clock (TIME, in microseconds) at which the
-- minimum hold ends, counted from the grant, or 0 when unknown (see unlock.lua)
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when this owner no longer writes, NOT_HELD (-1) when it held no write hold here.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local field = 'w:' .. ARGV[1]
if redis.call('hexists', KEYS[1], field) == 0 then
  return NOT_HELD
end
local left = tonumber(ARGV[2]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], field, left)
  return left
end
redis.call('hdel', KEYS[1], field, 'writer', 'wt')
local readersWaiting = redis.call('hdel', KEYS[1], 'readers-waiting') == 1
local reading = redis.call('hexists', KEYS[1], 'rn') == 1
local keep = tonumber(ARGV[7])
-- a minimum hold of the owner's own read, released while it wrote (a downgrade undone)
local keptRead = redis.call('hget', KEYS[1], 'kept-read')
if keep > 0 or readersWaiting or keptRead then
  local now, micros = clock()
  -- until when the lock stays taken for somebody (server time in microseconds): now, or the end of a
  -- minimum hold
  local ends = math.max(micros, tonumber(keptRead or '0'))
  local kept = 0
  if keep > 0 then
    kept = micros + keep * 1000
    if tonumber(ARGV[8]) > 0 then
      -- ends on this server's clock, not a round trip later (see unlock.lua)
      kept = math.min(kept, tonumber(ARGV[8]))
    end
  end
  if kept > micros then
    -- kept for nobody: no other owner reads or writes until then (one that still reads, having
    -- downgraded, reads on); the acquire scripts answer the time left
    redis.call('hset', KEYS[1], 'kept-write', kept)
    ends = math.max(ends, kept)
  end
  -- in whole milliseconds from now, rounded up: the key outlives the minimum hold
  ends = now + math.ceil((ends - micros) / 1000)
  if readersWaiting then
    -- their turn comes when the minimum hold ends
    redis.call('hset', KEYS[1], 'read-turn', ends + tonumber(ARGV[4]))
    ends = ends + tonumber(ARGV[4])
  end
  if reading then
    -- the readers' holds keep the hash as long as their leases at least; it outlives the keep
    if kept > micros and redis.call('pttl', KEYS[1]) < ends - now then
      redis.call('pexpire', KEYS[1], ends - now)
    end
  elseif ends > now then
    -- nobody holds it: it lasts as long as the keep or the turn, unless somebody comes in; the lease
    -- ends left are of readers gone
    redis.call('pexpire', KEYS[1], ends - now)
    redis.call('del', KEYS[2])
  else
    redis.call('del', KEYS[1], KEYS[2])
  end
elseif not reading then
  redis.call('del', KEYS[1], KEYS[2])
end
-- with readers left (the writer downgraded), other readers may join them now, unless kept out; waiters
-- kept out by a minimum hold ask again and are told how long it lasts
publish(ARGV[3], ARGV[5], 'released')
publish(ARGV[3], ARGV[6], 'released')
return 0
