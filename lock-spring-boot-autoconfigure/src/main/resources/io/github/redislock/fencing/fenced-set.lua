-- Records a fencing token for a key, and a value with it, unless the key holds a higher token: the check and the
-- write in one step (RedisFencedValues). The key is a hash with the fields 'token' (the highest token accepted,
-- as decimal digits) and 'value' (the value written with it).
-- KEYS[1] the hash
-- ARGV[1] the writer's fencing token, decimal digits
-- ARGV[2] the value, or absent to record the token alone and keep the value
-- Returns the token the hash held before, -1 when it held none: the write happened unless that is greater than
-- ARGV[1]. Tokens stay below 2^53, which Lua's numbers hold exactly.
local held = redis.call('hget', KEYS[1], 'token')
local before = held and tonumber(held) or -1
if before > tonumber(ARGV[1]) then
  return before
end
if ARGV[2] then
  redis.call('hset', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
else
  redis.call('hset', KEYS[1], 'token', ARGV[1])
end
return before
