package io.github.redislock.testsupport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Just enough of the Redis protocol to send one command without a client library: used to
 * probe readiness and to read server state (INFO, PUBSUB) in assertions.
 */
final class RespCommand {

	private RespCommand() {
	}

	static String send(String host, int port, String... args) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
			for (String arg : args) {
				byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
				request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
			}
			out.write(request.toString().getBytes(StandardCharsets.UTF_8));
			out.flush();
			return read(new BufferedInputStream(socket.getInputStream()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis at " + host + ":" + port + " did not answer " + args[0], ex);
		}
	}

	/**
	 * Whether a server answers PING at all; an authentication error counts as an answer.
	 */
	static boolean answers(String host, int port) {
		try {
			return "PONG".equals(send(host, port, "PING"));
		}
		catch (IllegalStateException ex) {
			return message(ex).contains("NOAUTH");
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Whether a server answers PING, or refuses it only because it is still loading its
	 * data set ({@code LOADING}): it accepts commands, some of them at once.
	 */
	static boolean answersOrLoading(String host, int port) {
		try {
			return "PONG".equals(send(host, port, "PING"));
		}
		catch (IllegalStateException ex) {
			return message(ex).contains("NOAUTH") || message(ex).contains("LOADING");
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Reads one reply; arrays come back as their elements, one per line; a nil as an
	 * empty string.
	 */
	private static String read(InputStream in) throws IOException {
		int type = in.read();
		String line = readLine(in);
		switch (type) {
			case '+', ':' -> {
				return line;
			}
			case '-' -> throw new IllegalStateException("Redis answered with an error: " + line);
			case '$' -> {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return "";
				}
				byte[] data = in.readNBytes(length + 2);
				return new String(data, 0, length, StandardCharsets.UTF_8);
			}
			case '*' -> {
				int count = Integer.parseInt(line);
				StringBuilder elements = new StringBuilder();
				for (int i = 0; i < count; i++) {
					elements.append(i == 0 ? "" : "\n").append(read(in));
				}
				return elements.toString();
			}
			default -> throw new IllegalStateException("Unexpected Redis reply type '" + (char) type + "'");
		}
	}

	// the error replies this class throws have a message; any other exception may not
	private static String message(IllegalStateException ex) {
		return Objects.toString(ex.getMessage(), "");
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != '\r') {
			if (c < 0) {
				throw new IOException("Connection closed by Redis");
			}
			line.append((char) c);
		}
		in.read();
		return line.toString();
	}

}
