-- Releases one hold of a lock; frees it, and tells waiters, when the last hold goes.
-- KEYS[1] the lock hash
-- ARGV[1] owner, ARGV[2] 1 to announce with SPUBLISH (sharded pub/sub on a Redis Cluster), else PUBLISH, ARGV[3] the holds this owner believes it has,
-- ARGV[4] milliseconds the lock must stay taken after the last hold (holdAtLeast), 0 for none,
-- ARGV[5] when waiters of another client are counted on the lock (see lock.lua), milliseconds the freed
-- lock stays reserved for the other clients, 0 to free it for anybody,
-- ARGV[6] 1 when the releasing client wakes its own waiters itself: the release is then announced
-- only when a waiter of another client marked the lock (a waiter marks it before it sleeps, see
-- lock.lua), which spares a PUBLISH (sent to every node of a Redis Cluster unless sharded) when nobody waits,
-- ARGV[7] the lock's release channel,
-- ARGV[8] when ARGV[4] > 0: the time of this server's clock (TIME, in microseconds) at which the minimum hold
-- ends, counted from the grant, or 0 when unknown (see KeepForNobody),
-- ARGV[9] the fencing token Redis granted the owner's hold with (field "token"), or 0 when unknown (a
-- settlement): a hold this client passed on among its threads speaks as the thread that took the lock
-- in Redis, which may since have taken it anew under the same owner id (its lease lost unseen); a late
-- release in that name must not free the new grant
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the holds left (> 0), 0 when the lock became free (or is kept for nobody), NOT_HELD (-1) when this owner
-- holds no lock here (its lease ran out, or the lock was force-unlocked), or not the grant ARGV[9] names.
-- one read for every field the release looks at: the owner's, whether another client waits, the grant's token
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local fields = redis.call('hmget', KEYS[1], ARGV[1], 'contended', 'token')
if not fields[1] then
  return NOT_HELD
end
-- compared as numbers: the field holds the token as Redis wrote a Lua number, the argument as the
-- client's decimal digits (both exact below 2^53)
if ARGV[9] ~= '0' and tonumber(fields[3]) ~= tonumber(ARGV[9]) then
  return NOT_HELD
end
-- The owner's own count is the truth, as in lock.lua: the stored one is higher when a nested acquire
-- ran here but its reply never reached the owner, and decrementing that would leave the lock held.
local left = tonumber(ARGV[3]) - 1
if left > 0 then
  redis.call('hset', KEYS[1], ARGV[1], left)
  return left
end
-- The markers below are made from the lock field by field, never after deleting it (they keep its
-- token): while its Cluster slot migrates, a key that went missing during the script could not be
-- written again on this node.
local keep = keepFor(ARGV[4], ARGV[8])
if keep > 0 then
  -- kept for nobody: no owner can release or re-enter it, not even this one; it ends with its expiry.
  -- Waiters are told, so that they sleep until then rather than until the old lease's end.
  redis.call('hdel', KEYS[1], ARGV[1], 'client', 'contended')
  redis.call('hset', KEYS[1], 'hold-at-least', 1)
  redis.call('pexpire', KEYS[1], keep)
elseif tonumber(ARGV[5]) > 0 and fields[2] then
  -- another client waits: its turn, before this client's other threads take the lock again (the
  -- waiters' marks and their count stay: see lock.lua)
  local client = redis.call('hget', KEYS[1], 'client') or ''
  redis.call('hdel', KEYS[1], ARGV[1], 'client')
  redis.call('hset', KEYS[1], 'yielded-by', client)
  redis.call('pexpire', KEYS[1], ARGV[5])
else
  redis.call('del', KEYS[1])
end
if ARGV[6] ~= '1' or fields[2] then
  publish(ARGV[2], ARGV[7], 'released')
end
return 0
