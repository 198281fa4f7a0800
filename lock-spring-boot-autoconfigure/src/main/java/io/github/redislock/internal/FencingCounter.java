package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;

/**
 * A slot's fencing counter as Redis has it, read with the server's clock: the next token
 * of a lock in the slot is the larger of the counter + 1 and the clock. Not API.
 *
 * @param key the counter's key, shared by every lock name in its cluster slot
 * @param value the last token the slot issued or reserved, or {@code null} when the
 * counter is gone (nothing acquired yet, or Redis lost it): the next token is the clock
 * @param serverMicros the Redis server's clock when it was read, in microseconds since
 * 1970 ({@code TIME})
 */
public record FencingCounter(String key, @Nullable Long value, long serverMicros) {

	/**
	 * How far the counter is ahead of the server's clock, in microseconds, or
	 * {@code null} without a counter. Below 0 the clock has passed the last token, as it
	 * normally has; far above 0, tokens were reserved in blocks faster than the clock
	 * moves, or the clock stepped back.
	 */
	public @Nullable Long leadMicros() {
		return (this.value != null) ? this.value - this.serverMicros : null;
	}

}
