package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends the lock scripts and encodes what they take: keys and arguments as the bytes
 * Lettuce's byte-array API sends, small numbers encoded once, a publishing script's
 * channels moved to its arguments. A script is run by its SHA1, and loaded with EVAL when
 * Redis does not have it; a refusal of a command the script calls is reworded to name
 * that command (see {@link RedisFailures#namingRefusedCommand}).
 */
final class ScriptCalls {

	private ScriptCalls() {
	}

	/**
	 * Runs a script by its SHA1, loading it with EVAL when Redis does not have it (after
	 * a restart, a failover or SCRIPT FLUSH). The script is one of {@link LockScripts}'s,
	 * whose SHA1 is read without a lock.
	 */
	static <T> CompletionStage<T> script(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, List<String> keys, String... args) {
		byte[][] keyBytes = new byte[keys.size()][];
		for (int i = 0; i < keyBytes.length; i++) {
			keyBytes[i] = bytes(keys.get(i));
		}
		byte[][] argBytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			argBytes[i] = bytes(args[i]);
		}
		return script(redis, script, type, keyBytes, argBytes);
	}

	/**
	 * Runs a script as
	 * {@link #script(RedisClusterAsyncCommands, RedisScript, ScriptOutputType, List, String...)}
	 * does, with its keys and arguments encoded already: the hot path's, whose keys
	 * ({@link LockKeys}) and most arguments ({@link Owner}, {@link Lease}, {@link #number
	 * small numbers}) keep their bytes. Nothing here or in Lettuce changes the arrays.
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

	/**
	 * Runs a script that publishes, given its keys followed by its channels: the channels
	 * go to the end of the arguments, not into the keys. A channel is never a key, and
	 * while a Redis Cluster slot migrates, a script that declares keys of which some
	 * exist and some do not is refused with {@code TRYAGAIN}: declared channels would
	 * refuse every release for the whole migration. (The hot path's scripts take
	 * {@link LockKeys#channelBytes()} as their last argument directly.)
	 * @param channels how many of the last {@code keysAndChannels} are channels
	 */
	static <T> CompletionStage<T> publishing(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, List<String> keysAndChannels, int channels, String... args) {
		int keys = keysAndChannels.size() - channels;
		List<String> all = new ArrayList<>(List.of(args));
		all.addAll(keysAndChannels.subList(keys, keysAndChannels.size()));
		return script(redis, script, type, keysAndChannels.subList(0, keys), all.toArray(String[]::new));
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

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
