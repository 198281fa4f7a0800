package io.github.redislock.sample;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample, started in AOT mode ({@code -Dspring.aot.enabled=true}, with the
 * initializers Spring's AOT processing generated at build time instead of the usual
 * reflection-driven start-up), takes locks over HTTP: what a native image runs, short of
 * compiling it. Runs in the integration-test phase, after the jar is built.
 */
class SampleAotIT {

	private static final Pattern TOMCAT_STARTED = Pattern.compile("Tomcat started on port (\\d+)");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Test
	void theAotProcessedSampleStartsAndLocksOverHttp() throws Exception {
		Path jar = Path.of("target", "sample-app-" + System.getProperty("sample.version", "0.1.0-SNAPSHOT") + ".jar");
		assertThat(jar).exists();
		Path log = Files.createTempFile("sample-aot-", ".log");
		// a Redis port nothing listens on: the sample starts its own redis-server
		Process sample = new ProcessBuilder(javaExecutable(), "-Dspring.aot.enabled=true", "-jar", jar.toString(),
				"--server.port=0", "--spring.data.redis.port=" + freePort(),
				"--management.endpoints.web.exposure.include=locks")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			await().atMost(Duration.ofSeconds(60))
				.until(() -> !sample.isAlive() || Files.readString(log).contains("Started SampleApplication"));
			String output = Files.readString(log, StandardCharsets.UTF_8);
			assertThat(sample.isAlive()).as(output).isTrue();
			assertThat(output).contains("Starting AOT-processed SampleApplication");
			int port = boundPort(output);
			String sku = "aot-" + UUID.randomUUID();
			assertThat(post(port, "/stock/" + sku + "/restock", "{\"quantity\": 5}").statusCode()).isEqualTo(200);
			HttpResponse<String> reserved = post(port, "/stock/" + sku + "/reservations", "{\"quantity\": 2}");
			assertThat(reserved.statusCode()).as(reserved.body()).isEqualTo(201);
			assertThat(reserved.body()).contains("\"remaining\":3");
			HttpResponse<String> locks = this.http
				.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/locks/stock:" + sku))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(locks.statusCode()).isEqualTo(200);
			assertThat(locks.body()).contains("\"locked\":false").contains("\"remainingLeaseMs\":null");
		}
		finally {
			sample.destroy();
			sample.waitFor();
			Files.deleteIfExists(log);
		}
	}

	private HttpResponse<String> post(int port, String path, String json) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * The port Tomcat bound. The sample binds port 0 and the test reads the port back: a
	 * port the test found free could be taken by another build's process before the
	 * sample binds it.
	 */
	private static int boundPort(String output) {
		Matcher started = TOMCAT_STARTED.matcher(output);
		assertThat(started.find()).as(output).isTrue();
		return Integer.parseInt(started.group(1));
	}

	private static int freePort() throws Exception {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static String javaExecutable() {
		return System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
	}

}
