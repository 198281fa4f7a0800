-- Acquires a permit of a semaphore: granted while fewer holders than the caller's own limit hold the name.
-- KEYS[1] the semaphore (sorted set: member = holder, the owner of one handle; score = Redis server time in ms
--   at which its lease ends; a member "kept:<owner>" is a permit kept for nobody after a holdAtLeast release)
-- KEYS[2] the slot's fencing clock: the last token issued (see lock.lua)
-- ARGV[1] lease in milliseconds, ARGV[2] owner (a handle's, never re-entered: every acquisition is a new
-- owner), ARGV[3] the caller's limit, at least 1: it is granted while fewer than that many hold the name, so a
-- caller with a higher limit than the others' may be granted beyond theirs, and one with a lower limit waits
-- until the holders are fewer than its own; no limit is stored, ARGV[4] how many fencing tokens to reserve
-- Returns, as every acquire script (see LockReply): the fencing token (> 0) when acquired; when busy, minus
-- how long to wait at most before asking again (ms; < 0): until the earliest lease end, when a permit comes
-- back without a release message if its holder died.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now, micros = clock()
local lease = tonumber(ARGV[1])
-- holders whose lease has passed (their process died, or stopped renewing) give their permit back here;
-- O(log N) plus one step per holder dropped, each dropped once
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
local held = redis.call('zcard', KEYS[1])
-- the owner is already a member only when an earlier attempt of this acquisition was granted but its reply
-- never arrived: it takes its permit over, whatever the count
if held < tonumber(ARGV[3]) or redis.call('zscore', KEYS[1], ARGV[2]) then
  -- the slot's clock (see reserve() in prelude.lua)
  local token = reserve(KEYS[2], micros, tonumber(ARGV[4]))
  redis.call('zadd', KEYS[1], now + lease, ARGV[2])
  -- the key lives until the latest lease end, so that it is gone once every holder is
  if held == 0 or redis.call('pttl', KEYS[1]) < lease then
    redis.call('pexpire', KEYS[1], lease)
  end
  return token
end
-- busy: the earliest lease end is when a permit comes back at the latest; a release usually tells sooner
local first = redis.call('zrange', KEYS[1], 0, 0, 'WITHSCORES')
return -math.max(1, tonumber(first[2]) - now)
