package io.github.redislock.internal;

import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Loads the Lua scripts, once, from this package's folder on the classpath (not the root,
 * where an application's own {@code lock.lua} could shadow them), each preceded by the
 * shared prelude ({@link ScriptTexts}). Each is one {@link DefaultRedisScript} whose SHA1
 * is computed once and read without a lock, so the engine sends EVALSHA and falls back to
 * EVAL only when Redis lost its script cache (restart, failover, SCRIPT FLUSH). A
 * {@link LockKind} loads its own scripts; the ones here serve every kind.
 */
final class LockScripts {

	/** Free whoever holds: 1 when freed. */
	static final RedisScript<Long> FORCE_UNLOCK = load("force-unlock.lua", Long.class);

	private LockScripts() {
	}

	/**
	 * Frees a lock whoever holds it, and announces it.
	 * @param keys the lock key, then other keys of its holders
	 * @param channels the channels its waiters wait on (arguments, never keys: see
	 * {@link ScriptCalls})
	 * @return whether it was taken
	 */
	static CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, byte[][] keys,
			PublishMode publish, byte[]... channels) {
		byte[][] args = new byte[channels.length + 2][];
		// how many holder keys follow the hash
		args[0] = ScriptCalls.number(keys.length - 1);
		args[1] = publish.argument();
		System.arraycopy(channels, 0, args, 2, channels.length);
		return ScriptCalls.<Long>script(redis, FORCE_UNLOCK, ScriptOutputType.INTEGER, keys, args)
			.thenApply(LockReply::yes);
	}

	// The text is read once and the script built from it: a script built on the resource
	// itself would ask the resource for its modification time on every execution (a file
	// system call, or a jar lookup). The text begins with the prelude (see ScriptTexts).
	static <T> RedisScript<T> load(String name, Class<T> resultType) {
		return new Loaded<>(ScriptTexts.text(name), resultType);
	}

	/**
	 * A script whose SHA1 is computed once: {@link DefaultRedisScript#getSha1()} takes a
	 * lock on every call (to notice a changed source, which a text never is), and a
	 * contended lock parks the caller, on a reactive or event-loop thread too.
	 */
	private static final class Loaded<T> extends DefaultRedisScript<T> {

		private final String sha1;

		Loaded(String text, Class<T> resultType) {
			super(text, resultType);
			this.sha1 = super.getSha1();
		}

		@Override
		public String getSha1() {
			return this.sha1;
		}

	}

}
