package io.github.redislock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * State the lock holders of several JVMs share through a memory-mapped file, so that
 * checking the lock costs no Redis command: a counter that holders increment without
 * atomicity (a lost update means two holders overlapped) and the time of the last release
 * (for the hand-off gap; {@code System.nanoTime()} is one clock for all processes on
 * Linux).
 */
final class SharedCounter implements AutoCloseable {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private static final int COUNTER = 0;

	private static final int LAST_RELEASE = 8;

	private static final int MEASURE_FROM = 16;

	private static final int END = 24;

	private final FileChannel channel;

	private final MappedByteBuffer buffer;

	SharedCounter(Path file) {
		try {
			this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
					StandardOpenOption.WRITE);
			this.buffer = this.channel.map(FileChannel.MapMode.READ_WRITE, 0, 64);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Read, then write plus one: two overlapping holders lose an increment. */
	void incrementWithoutAtomicity() {
		long value = (long) LONGS.getVolatile(this.buffer, COUNTER);
		Thread.onSpinWait();
		LONGS.setVolatile(this.buffer, COUNTER, value + 1);
	}

	long counter() {
		return (long) LONGS.getVolatile(this.buffer, COUNTER);
	}

	void reset() {
		LONGS.setVolatile(this.buffer, COUNTER, 0L);
		LONGS.setVolatile(this.buffer, LAST_RELEASE, 0L);
		LONGS.setVolatile(this.buffer, MEASURE_FROM, 0L);
		LONGS.setVolatile(this.buffer, END, 0L);
	}

	/** Tells the worker JVMs when to measure; 0 until the parent has decided. */
	void window(long measureFromMillis, long endMillis) {
		LONGS.setVolatile(this.buffer, END, endMillis);
		LONGS.setVolatile(this.buffer, MEASURE_FROM, measureFromMillis);
	}

	long measureFrom() {
		return (long) LONGS.getVolatile(this.buffer, MEASURE_FROM);
	}

	long end() {
		return (long) LONGS.getVolatile(this.buffer, END);
	}

	void released(long nanoTime) {
		LONGS.setVolatile(this.buffer, LAST_RELEASE, nanoTime);
	}

	long lastRelease() {
		return (long) LONGS.getVolatile(this.buffer, LAST_RELEASE);
	}

	@Override
	public void close() {
		try {
			this.channel.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
