-- Reads a semaphore (see semaphore-acquire.lua) on Redis' clock, without changing it.
-- KEYS[1] the semaphore; ARGV[1] an owner whose lease to read, or '' for every holder
-- Returns, for an owner: what is left of its lease in ms, or NO_KEY (-2) when it holds no permit; for every holder:
-- a flat list of member, ms left of its lease, for the holders whose lease has not passed.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
local now = clock()
if ARGV[1] ~= '' then
  local score = redis.call('zscore', KEYS[1], ARGV[1])
  if not score or tonumber(score) <= now then
    return NO_KEY
  end
  return tonumber(score) - now
end
local live = redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
for i = 2, #live, 2 do
  live[i] = tonumber(live[i]) - now
end
return live
