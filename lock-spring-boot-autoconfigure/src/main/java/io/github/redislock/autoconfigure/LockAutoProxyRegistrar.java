package io.github.redislock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.Assert;

/**
 * Makes sure some auto-proxy creator applies the lock advisor, also when Spring Boot's
 * AOP auto-configuration is off. An existing, more capable creator (AspectJ's, which Boot
 * registers) is kept. Proxies are class-based unless
 * {@code spring.aop.proxy-target-class=false}, as in Spring Boot.
 */
class LockAutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	// set by Spring before it calls registerBeanDefinitions
	private @Nullable Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		Assert.state(this.environment != null, "No Environment set");
		if (this.environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
