-- Lets a client go on passing a lock among its own threads without freeing it in Redis, or makes it
-- give the lock up when another client waits. Run by the client once every few passes (when its
-- reserved fencing tokens run out, or ahead of that); the passes in between ask Redis nothing.
-- KEYS[1] the lock hash, KEYS[2] the slot's fencing clock: the last token issued (see lock.lua)
-- ARGV[1] the owner Redis knows as the holder (who took the lock in Redis for this client),
-- ARGV[2] how many fencing tokens to reserve, ARGV[3] 1 to announce with SPUBLISH (sharded pub/sub),
-- ARGV[4] the lease in milliseconds, ARGV[5] how long the lock stays given up to other clients,
-- ARGV[6] 1 to give the lock up when another client waits; 0 to only say so (the client asks ahead
-- of time, while one of its threads still holds the lock, and gives it up at that one's release),
-- ARGV[7] the lock's release channel, ARGV[8] the fencing token the holder's hold was granted with (field
-- "token"), or 0 when unknown: the run goes on only while Redis holds that grant, not another one of
-- the same owner id (see unlock.lua)
-- A channel is an argument, not a key: a channel is never a key, and a Redis Cluster slot being migrated
-- answers TRYAGAIN to a script that declares keys of which some exist and some do not.
-- Returns the first reserved token (> 0) when the client goes on; 0 when another client waits: with
-- ARGV[6] = 1 the lock is freed for the other clients (its own threads must wait for them or for
-- ARGV[5]) and they are told ('yielded:<client>' on the channel), else nothing changed; NOT_HELD (-1) when the
-- owner no longer holds the lock, or holds another grant than ARGV[8].
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local fields = redis.call('hmget', KEYS[1], ARGV[1], 'contended', 'token')
-- the token compared as numbers, as unlock.lua does
if not fields[1] or (ARGV[8] ~= '0' and tonumber(fields[3]) ~= tonumber(ARGV[8])) then
  return NOT_HELD
end
if fields[2] then
  if ARGV[6] == '0' then
    return 0
  end
  -- made field by field, never after deleting the lock (see unlock.lua)
  local client = redis.call('hget', KEYS[1], 'client') or ''
  redis.call('hdel', KEYS[1], ARGV[1], 'client')
  -- this client still waits (it was passing the lock on): the other client's turn is bounded too,
  -- although this client's waiters leave Redis alone until that turn ends (or this reservation)
  redis.call('hset', KEYS[1], 'yielded-by', client)
  -- counted in as one waiter (field w:<client>), since its own threads now hold off rather than ask
  -- Redis: so that the other client's turn is bounded too (see lock.lua)
  if redis.call('hsetnx', KEYS[1], 'w:' .. client, 1) == 1 then
    redis.call('hincrby', KEYS[1], 'contended', 1)
  end
  redis.call('pexpire', KEYS[1], ARGV[5])
  -- names the client that gave the lock up: its own waiters need not wake for this message
  publish(ARGV[3], ARGV[7], 'yielded:' .. client)
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[4])
-- the block's tokens come from the slot's clock as a grant's do (see reserve() in prelude.lua)
local _, micros = clock()
local token = reserve(KEYS[2], micros, tonumber(ARGV[2]))
return token
