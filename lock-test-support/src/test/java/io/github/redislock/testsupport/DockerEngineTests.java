package io.github.redislock.testsupport;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Docker engine is looked for without Testcontainers: only an engine that answers
 * {@code GET /_ping}, or a configuration only Testcontainers reads, lets Testcontainers
 * be asked.
 */
class DockerEngineTests {

	@TempDir
	Path home;

	@Test
	void socketThatDoesNotExistIsNoEngine() {
		assertThat(engineAt(this.home.resolve("docker.sock")).mayAnswer()).isFalse();
	}

	@Test
	void socketNobodyListensOnIsNoEngine() throws IOException {
		Path socket = this.home.resolve("docker.sock");
		try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
			server.bind(UnixDomainSocketAddress.of(socket));
		}
		assertThat(socket).exists();
		assertThat(engineAt(socket).mayAnswer()).isFalse();
	}

	@Test
	void engineThatAnswersItsPingIsFound() throws IOException {
		assertThat(answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK")).isTrue();
	}

	@Test
	void socketThatAnswersSomethingElseIsNoEngine() throws IOException {
		assertThat(answering("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")).isFalse();
	}

	@Test
	void configurationOnlyTestcontainersReadsIsLeftToTestcontainers() throws IOException {
		Path socket = this.home.resolve("docker.sock");
		assertThat(new DockerEngine(Map.of("TC_HOST", "tcp://docker.example:2375"), this.home).mayAnswer()).isTrue();
		Files.writeString(this.home.resolve(".testcontainers.properties"), "docker.host=tcp://docker.example:2375\n");
		assertThat(engineAt(socket).mayAnswer()).isTrue();
	}

	private DockerEngine engineAt(Path socket) {
		return new DockerEngine(Map.of("DOCKER_HOST", "unix://" + socket), this.home);
	}

	private boolean answering(String reply) throws IOException {
		Path socket = this.home.resolve("docker.sock");
		try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
			server.bind(UnixDomainSocketAddress.of(socket));
			CompletableFuture<Void> answered = CompletableFuture.runAsync(() -> {
				try (SocketChannel client = server.accept()) {
					client.read(ByteBuffer.allocate(256));
					client.write(ByteBuffer.wrap(reply.getBytes(StandardCharsets.US_ASCII)));
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			});
			boolean found = engineAt(socket).mayAnswer();
			answered.join();
			return found;
		}
	}

}
