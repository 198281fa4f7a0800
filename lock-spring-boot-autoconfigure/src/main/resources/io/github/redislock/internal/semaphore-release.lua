-- Releases a permit of a semaphore (see semaphore-acquire.lua) and tells its waiters.
-- KEYS[1] the semaphore
-- ARGV[1] owner, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub), else PUBLISH, ARGV[3] milliseconds the permit must stay taken
-- (holdAtLeast), 0 for none: then it is kept for nobody until that has passed, ARGV[4] its release channel,
-- ARGV[5] when ARGV[3] > 0: the time of this server's clock (TIME, in microseconds) at which the minimum hold
-- ends, counted from the grant, or 0 when unknown (see unlock.lua)
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns, as every release script (see LockReply): 0 when the permit was given back (or is kept for
-- nobody), NOT_HELD (-1) when this owner holds none here (its lease ran out, or the semaphore was force-released).
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local score = redis.call('zscore', KEYS[1], ARGV[1])
if not score then
  return NOT_HELD
end
redis.call('zrem', KEYS[1], ARGV[1])
if tonumber(score) <= now then
  -- its lease had passed: the permit was already everybody's
  return NOT_HELD
end
local keep = keepFor(ARGV[3], ARGV[5], micros)
if keep > 0 then
  -- kept for nobody, under a name no owner has, until it expires
  redis.call('zadd', KEYS[1], now + keep, 'kept:' .. ARGV[1])
end
-- the key lives until the latest end of those left, so that it is gone with them even if nobody acquires
-- again (an acquisition drops the ended ones): the released permit's end may have been the latest, and a
-- kept one may end later than any (an empty set is gone with its last member)
local last = redis.call('zrange', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] and (keep > 0 or tonumber(last[2]) < tonumber(score)) then
  redis.call('pexpire', KEYS[1], math.max(1, tonumber(last[2]) - now))
end
-- the waiter asleep longest of each client asks again: a permit is free, or, when kept for nobody, it comes
-- back when the minimum hold ends, which may be before the lease end the waiters were told when refused
-- (they would sleep on while it is free; unlock.lua tells them for the same reason)
publish(ARGV[2], ARGV[4], 'released')
return 0
