package io.github.redislock.fencing;

import java.util.Map;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link RedisFencedValues} on a Redis server of this test's own: the guard contract for
 * {@code accept}, and the value written with its token.
 */
class RedisFencedValuesTests extends FencingGuardContract {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate template;

	private RedisFencedValues values;

	@BeforeEach
	void connect() {
		this.connectionFactory = redis.newConnectionFactory();
		this.template = new StringRedisTemplate(this.connectionFactory);
		this.values = new RedisFencedValues(this.template);
	}

	@AfterEach
	void disconnect() {
		this.connectionFactory.destroy();
	}

	@Override
	protected FencingGuard guard() {
		return this.values;
	}

	@Test
	void aValueWrittenWithTheNewestTokenIsReadBack() {
		String key = resource();
		assertThat(this.values.get(key)).isNull();
		this.values.set(key, "10", BASE + 5);
		this.values.set(key, "9", BASE + 7);
		assertThat(this.values.get(key)).isEqualTo("9");
	}

	@Test
	void aStaleWriteIsRefusedAndLeavesTheNewerValue() {
		String key = resource();
		this.values.set(key, "9", BASE + 7);
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.values.set(key, "10", BASE + 5))
			.satisfies((ex) -> assertThat(ex.getHighestSeen()).isEqualTo(BASE + 7));
		assertThat(this.values.get(key)).isEqualTo("9");
	}

	@Test
	void acceptRecordsTheTokenAndKeepsTheValue() {
		String key = resource();
		this.values.set(key, "9", BASE + 5);
		this.values.accept(key, BASE + 7);
		assertThat(this.values.get(key)).isEqualTo("9");
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> this.values.set(key, "10", BASE + 6));
	}

	@Test
	void theKeyIsOneHashOfValueAndTokenAsDocumented() {
		String key = resource();
		this.values.set(key, "9", BASE + 7);
		Map<Object, Object> hash = this.template.opsForHash().entries(key);
		assertThat(hash).containsOnly(Map.entry("value", "9"), Map.entry("token", Long.toString(BASE + 7)));
	}

}
