package io.github.redislock.autoconfigure;

import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.interceptor.AnnotationLockOperationSource;
import io.github.redislock.interceptor.LockInterceptor;
import io.github.redislock.interceptor.LockOperationSource;
import io.github.redislock.interceptor.LockOperationSourceAdvisor;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Auto-configures a {@link RedisLockClient} on the application's
 * {@link RedisConnectionFactory} (whatever {@code spring.data.redis.*} describes:
 * standalone, Sentinel or Cluster, ACL, TLS), a {@link ReactiveRedisLockClient} on it
 * when Reactor is present, and the {@code @DistributedLock} support. Every bean backs off
 * when the application defines its own; {@code redis-lock.enabled=false} turns it all
 * off. With an {@link ObservationRegistry} bean (Actuator), acquisitions and holds are
 * observed; {@link RedisLockClientBuilderCustomizer} beans adjust the client further.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnClass({ RedisConnectionFactory.class, StringRedisTemplate.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockAutoConfiguration {

	// A template of its own: an application's StringRedisTemplate may have transaction
	// support enabled, which would queue the lock scripts inside a MULTI and return no
	// result.
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedisLockClient redisLockClient(RedisConnectionFactory connectionFactory, RedisLockProperties properties,
			ApplicationEventPublisher eventPublisher, ObjectProvider<RedisLockClientBuilderCustomizer> customizers) {
		StringRedisTemplate redisTemplate = new StringRedisTemplate(connectionFactory);
		RedisLockClient.Builder builder = RedisLockClient.builder(redisTemplate)
			.keyPrefix(properties.getKeyPrefix())
			.watchdogTimeout(properties.getWatchdogTimeout())
			.commandTimeout(properties.getCommandTimeout())
			.maxLocalPasses(properties.getMaxLocalPasses())
			.shardedPubSub(properties.getShardedPubSub())
			.leaseLostListener(eventPublisher::publishEvent);
		RedisLockProperties.ReplicaAcknowledgement acknowledgement = properties.getReplicaAcknowledgement();
		if (acknowledgement.getReplicas() > 0) {
			builder.replicaAcknowledgement(acknowledgement.getReplicas(), acknowledgement.getTimeout());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	// Spring Framework itself depends on the Observation API, so this needs no class
	// condition; without an ObservationRegistry bean (no Actuator) nothing is observed.
	@Bean
	RedisLockClientBuilderCustomizer redisLockObservationCustomizer(
			ObjectProvider<ObservationRegistry> observationRegistry) {
		return (builder) -> observationRegistry.ifUnique(builder::observationRegistry);
	}

	@Bean
	RedisLockClientLifecycle redisLockClientLifecycle(RedisLockClient redisLockClient) {
		return new RedisLockClientLifecycle(redisLockClient);
	}

	// Reactor comes with Lettuce, but an application may leave it out
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "reactor.core.publisher.Mono")
	static class ReactiveConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveRedisLockClient reactiveRedisLockClient(RedisLockClient redisLockClient) {
			return ReactiveRedisLockClient.create(redisLockClient);
		}

	}

	// The annotation beans are infrastructure, created before ordinary beans; they bind
	// the properties they need themselves so that the RedisLockProperties bean is not
	// created that early (it would miss post-processing).
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.aop.support.AbstractPointcutAdvisor")
	@Import(LockAutoProxyRegistrar.class)
	static class AnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockOperationSource lockOperationSource(Environment environment) {
			RedisLockProperties properties = bind(environment);
			return new AnnotationLockOperationSource(properties.getWaitTime(), properties.getLeaseTime());
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockInterceptor lockInterceptor(LockOperationSource lockOperationSource,
				ObjectProvider<RedisLockClient> redisLockClient) {
			return new LockInterceptor(lockOperationSource, redisLockClient::getObject);
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockOperationSourceAdvisor lockOperationSourceAdvisor(LockOperationSource lockOperationSource,
				LockInterceptor lockInterceptor, Environment environment) {
			LockOperationSourceAdvisor advisor = new LockOperationSourceAdvisor(lockOperationSource, lockInterceptor);
			advisor.setOrder(bind(environment).getAspectOrder());
			return advisor;
		}

		private static RedisLockProperties bind(Environment environment) {
			return Binder.get(environment).bindOrCreate("redis-lock", RedisLockProperties.class);
		}

	}

}
