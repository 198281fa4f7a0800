package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends the lock scripts and encodes what they take: keys and arguments as the bytes
 * Lettuce's byte-array API sends, small numbers encoded once. A channel is an argument,
 * never a key: while a Redis Cluster slot migrates, a script that declares keys of which
 * some exist and some do not is refused with {@code TRYAGAIN}, so declared channels would
 * refuse every release for the whole migration. A script is run by its SHA1, and loaded
 * with EVAL when Redis does not have it; a refusal of a command the script calls is
 * reworded to name that command (see {@link RedisFailures#namingRefusedCommand}).
 */
final class ScriptCalls {

	private ScriptCalls() {
	}

	/**
	 * Runs a script by its SHA1, loading it with EVAL when Redis does not have it (after
	 * a restart, a failover or SCRIPT FLUSH). The script is one of {@link LockScripts}'s,
	 * whose SHA1 is read without a lock. Every kind passes its keys and arguments alike,
	 * as bytes: the keys ({@link LockKeys}), the owner ({@link Owner#argument()}), the
	 * lease ({@link Lease#argument()}), the publish flag ({@link PublishMode#argument()})
	 * and the channel ({@link LockKeys#channelBytes()}) keep theirs, and numbers and
	 * flags go through {@link #number} and {@link #flag}. Nothing here or in Lettuce
	 * changes the arrays.
	 */
	static <T> CompletionStage<T> script(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, byte[][] keys, byte[]... args) {
		// one stage on the way of every reply, whatever it is
		CompletionStage<T> bySha = redis.evalsha(script.getSha1(), type, keys, args);
		return bySha.exceptionallyCompose((ex) -> {
			if (RedisFailures.unwrap(ex) instanceof RedisNoScriptException) {
				CompletionStage<T> byText = redis.eval(script.getScriptAsString(), type, keys, args);
				return byText.exceptionallyCompose((failure) -> CompletableFuture
					.failedFuture(RedisFailures.namingRefusedCommand(script, failure)));
			}
			return CompletableFuture.failedFuture(RedisFailures.namingRefusedCommand(script, ex));
		});
	}

	// hold counts, token counts, flags and short times: encoded once
	private static final byte[][] SMALL_NUMBERS = new byte[256][];

	static {
		for (int i = 0; i < SMALL_NUMBERS.length; i++) {
			SMALL_NUMBERS[i] = bytes(Integer.toString(i));
		}
	}

	/** A number as a script argument: its decimal digits. */
	static byte[] number(long value) {
		return (value >= 0 && value < SMALL_NUMBERS.length) ? SMALL_NUMBERS[(int) value] : bytes(Long.toString(value));
	}

	/** A flag as a script argument: "1" or "0". */
	static byte[] flag(boolean value) {
		return number(value ? 1 : 0);
	}

	/**
	 * Keys built per call (a kind's keys beside its {@link LockKeys#scriptKeyBytes()}),
	 * encoded as a script's keys.
	 */
	static byte[][] keys(List<String> keys) {
		byte[][] encoded = new byte[keys.size()][];
		for (int i = 0; i < encoded.length; i++) {
			encoded[i] = bytes(keys.get(i));
		}
		return encoded;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
