-- Sets what is left of a held lock's lease, shorter or longer, if the owner still holds it.
-- KEYS[1] the lock hash; ARGV[1] owner, ARGV[2] the new remaining lease in milliseconds
-- Returns 1 when the owner holds the lock (its lease is set), 0 when it does not.
-- Begins with prelude.lua: the replication guard, its functions (clock(), reserve(), ...) and the reply codes.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
