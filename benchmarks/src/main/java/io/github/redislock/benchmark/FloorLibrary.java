package io.github.redislock.benchmark;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The least a correct Redis lock can cost: one {@code SET key token NX PX} to acquire and
 * one compare-and-delete script to release, on a raw Lettuce connection shared by all
 * threads. Not reentrant; under contention it retries after a short pause.
 */
final class FloorLibrary implements LockLibrary {

	private static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) else return 0 end";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final String releaseSha;

	private final String clientId = UUID.randomUUID().toString();

	private final Map<Long, String> tokens = new ConcurrentHashMap<>();

	FloorLibrary(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.releaseSha = this.commands.scriptLoad(COMPARE_AND_DELETE);
	}

	@Override
	public void lock(String name) {
		String token = this.tokens.computeIfAbsent(Thread.currentThread().getId(), (id) -> this.clientId + ":" + id);
		SetArgs args = SetArgs.Builder.nx().px(30_000);
		while (this.commands.set("floor:" + name, token, args) == null) {
			LockSupport.parkNanos(100_000);
		}
	}

	@Override
	public void unlock(String name) {
		String token = this.tokens.get(Thread.currentThread().getId());
		this.commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { "floor:" + name }, token);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
