package io.github.redislock.internal;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The read/write lock's two {@link LockKind}s, {@link ReadLock} and {@link WriteLock},
 * and what they share. One hash per name holds the writer and every reader's hold count;
 * a sorted set beside it holds when each reader's lease ends, so that a dead reader is
 * found without renewing the hash for the live ones; another holds the writers waiting,
 * which keep new readers out. Readers wait on one release channel, writers on another, so
 * that each side's waiters are woken as that side needs (all readers, one writer). The
 * scripts ({@code read-lock.lua}, {@code write-lock.lua} and their unlocks) document
 * keys, arguments and replies.
 */
final class ReadWriteLocks {

	static final ReadLock READ = new ReadLock();

	static final WriteLock WRITE = new WriteLock();

	private static final RedisScript<Long> FORCE_UNLOCK = LockScripts.FORCE_UNLOCK;

	private ReadWriteLocks() {
	}

	/** When each reader's lease ends. */
	static String readersKey(String lockKey) {
		return lockKey + ":readers";
	}

	/** The writers waiting. */
	static String writersKey(String lockKey) {
		return lockKey + ":writers";
	}

	/** Where a release readers wait for is published. */
	static String readersChannel(String lockKey) {
		return lockKey + ":released:read";
	}

	/** Where a release writers wait for is published. */
	static String writersChannel(String lockKey) {
		return lockKey + ":released:write";
	}

	/** One side of a read/write lock. */
	interface Side extends LockKind {

		/** The channel this side's waiters wait on. */
		String channel(String lockKey);

		/** What the client knows this side by, apart from the other side. */
		String id(String lockKey);

		// both sides share one hash and its neighbours, and are told apart by their
		// channels and the ids this client knows them by
		@Override
		default LockKeys keys(String keyPrefix, String name) {
			String lockKey = LockKeys.lockKey(keyPrefix, name, ":rw");
			return LockKeys.of(name, lockKey, channel(lockKey), this, id(lockKey),
					List.of(lockKey, readersKey(lockKey), writersKey(lockKey), LockKeys.fenceKey(keyPrefix, lockKey)));
		}

		// either side reads the whole lock: its readers, its writer, the writers waiting
		@Override
		default CompletionStage<KindState> state(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
			return KindReads.read(redis, keys, writersKey(keys.lockKey()))
				.thenApply((replies) -> ReadWriteLocks.state(keys, replies));
		}

		// either side frees the whole lock, and wakes both sides' waiters
		@Override
		default CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
				PublishMode publish) {
			// one holder key after the hash: the readers' lease ends
			return LockScripts.forceRelease(redis, holderKeyBytes(keys), publish, readersChannelBytes(keys),
					writersChannelBytes(keys));
		}

	}

	/** The endpoint's mode of both sides. */
	static final String MODE = "readWrite";

	/**
	 * The read/write lock's state: every reader and the writer among its holders (an
	 * owner that writes and reads with the sum of its holds), the writer's token while
	 * there is one, else the read phase's; in its details the {@code readers} by owner,
	 * the {@code writer}, its {@code writeHolds}, the {@code readToken} and the
	 * {@code writeToken}.
	 */
	static KindState state(LockKeys keys, KindReads.Replies replies) {
		Map<String, String> fields = replies.fields();
		Map<String, Integer> readers = new TreeMap<>();
		fields.forEach((field, value) -> {
			if (field.startsWith("r:")) {
				readers.put(field.substring(2), Integer.valueOf(value));
			}
		});
		String writer = fields.get("writer");
		String writeHoldsField = (writer != null) ? fields.get("w:" + writer) : null;
		int writeHolds = (writeHoldsField != null) ? Integer.parseInt(writeHoldsField) : 0;
		Map<String, Integer> holders = new TreeMap<>(readers);
		Long readToken = KindReads.longOrNull(fields.get("rt"));
		Long writeToken = KindReads.longOrNull(fields.get("wt"));
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("readers", Collections.unmodifiableMap(readers));
		if (writer != null) {
			holders.merge(writer, writeHolds, Integer::sum);
			details.put("writer", writer);
		}
		details.put("writeHolds", writeHolds);
		if (readToken != null) {
			details.put("readToken", readToken);
		}
		if (writeToken != null) {
			details.put("writeToken", writeToken);
		}
		// with nobody holding it, the hash lives on only for a minimum hold (or the
		// readers' short turn)
		boolean keptForNobody = holders.isEmpty()
				&& (fields.containsKey("kept-write") || fields.containsKey("kept-read"));
		return new KindState(MODE, keys.lockKey(), holders, (writer != null) ? writeToken : readToken, replies.ttl(),
				keptForNobody, replies.count(), Collections.unmodifiableMap(details));
	}

	/** The hash and the readers' lease ends: what a release touches. */
	static List<String> holderKeys(LockKeys keys) {
		return keys.scriptKeys().subList(0, 2);
	}

	/** {@link #holderKeys} as a script's keys, encoded already. */
	static byte[][] holderKeyBytes(LockKeys keys) {
		return Arrays.copyOf(keys.scriptKeyBytes(), 2);
	}

	/**
	 * {@link #readersChannel} as a script's argument: a write release and a forced
	 * release announce on it.
	 */
	static byte[] readersChannelBytes(LockKeys keys) {
		return ScriptCalls.bytes(readersChannel(keys.lockKey()));
	}

	/**
	 * {@link #writersChannel} as a script's argument: a write release and a forced
	 * release announce on it.
	 */
	static byte[] writersChannelBytes(LockKeys keys) {
		return ScriptCalls.bytes(writersChannel(keys.lockKey()));
	}

	/** Decodes an acquire script's reply: one token, shared by a read phase. */
	static LockReply acquired(@Nullable Long reply) {
		return LockReply.acquired(reply, 1);
	}

}
