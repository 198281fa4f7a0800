package io.github.redislock.autoconfigure.fencing;

import io.github.redislock.fencing.FencingGuard;
import io.github.redislock.fencing.JdbcFencingGuard;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the application gets a {@link JdbcFencingGuard}; no database is contacted (the
 * guard reads nothing at start-up).
 */
class JdbcFencingGuardAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JdbcFencingGuardAutoConfiguration.class));

	@Test
	void aSingleJdbcTemplateGetsAGuardOnTheDefaultTable() {
		this.runner.withBean(JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.run((context) -> {
				assertThat(context).hasSingleBean(FencingGuard.class);
				assertThat(context.getBean(JdbcFencingGuard.class).getTable()).isEqualTo("redis_lock_fence");
			});
	}

	@Test
	void theTablePropertyNamesTheTable() {
		this.runner.withBean(JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.withPropertyValues("redis-lock.fencing.table=locks.fence")
			.run((context) -> assertThat(context.getBean(JdbcFencingGuard.class).getTable()).isEqualTo("locks.fence"));
	}

	@Test
	void aTableNameThatIsNotAnIdentifierFailsStartupNamingTheProperty() {
		this.runner.withBean(JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.withPropertyValues("redis-lock.fencing.table=fence;drop")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-lock.fencing.table")
				.hasMessageContaining("'fence;drop'"));
	}

	@Test
	void withoutAJdbcTemplateThereIsNoGuard() {
		this.runner.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingGuard.class));
	}

	@Test
	void twoJdbcTemplatesWithoutAPrimaryGetNoGuard() {
		this.runner.withBean("first", JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.withBean("second", JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingGuard.class));
	}

	@Test
	void aGuardOfTheApplicationWins() {
		FencingGuard own = (resource, token) -> {
		};
		this.runner.withBean(JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.withBean("ownGuard", FencingGuard.class, () -> own)
			.run((context) -> assertThat(context).getBean(FencingGuard.class).isSameAs(own));
	}

	@Test
	void disabledFlagTurnsItOff() {
		this.runner.withBean(JdbcTemplate.class, JdbcFencingGuardAutoConfigurationTests::jdbcTemplate)
			.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingGuard.class));
	}

	@Test
	void withoutSpringJdbcNothingIsRegisteredAndNothingFails() {
		this.runner.withClassLoader(new FilteredClassLoader(JdbcOperations.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FencingGuard.class));
	}

	// connects only when used, which these tests do not
	private static JdbcTemplate jdbcTemplate() {
		return new JdbcTemplate(new DriverManagerDataSource("jdbc:h2:mem:unused"));
	}

}
