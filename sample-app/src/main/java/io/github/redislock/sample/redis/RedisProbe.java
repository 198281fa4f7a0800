package io.github.redislock.sample.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Asks whether a Redis answers at an address, with one PING and a short timeout.
 */
final class RedisProbe {

	private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

	private RedisProbe() {
	}

	/**
	 * Whether something that speaks the Redis protocol answers at the address. An error
	 * reply such as {@code -NOAUTH} counts: that is a Redis which wants a password, and
	 * the application's own credentials will be used with it.
	 * @param host the host to ask
	 * @param port the port to ask
	 * @param timeout how long connecting, and then waiting for the reply, may take
	 * @return whether a Redis answered
	 */
	static boolean answers(String host, int port, Duration timeout) {
		int millis = (int) timeout.toMillis();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			socket.getOutputStream().write(PING);
			socket.getOutputStream().flush();
			InputStream reply = socket.getInputStream();
			int first = reply.read();
			return first == '+' || first == '-';
		}
		catch (IOException | IllegalArgumentException ex) {
			// refused, timed out, unknown host, or a port number out of range
			return false;
		}
	}

}
