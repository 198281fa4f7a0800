package io.github.redislock.testsupport;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.jspecify.annotations.Nullable;

/**
 * Feeds the {@link LockRecorder} from the observations of the auto-configured lock
 * client, which observes through the context's one {@link ObservationRegistry}. When the
 * application defines no registry (no Actuator), this registers one, after the
 * configuration classes and auto-configurations have been read, so that no
 * {@code @ConditionalOnMissingBean} sees it. Once every singleton is created, it adds the
 * recorder's handler to every registry bean: the client asks its registry whether anyone
 * observes at each acquisition, so it is heard from then on, and no bean post-processor
 * has to come before whatever creates the registry.
 */
final class LockRecorderRegistration
		implements BeanDefinitionRegistryPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

	static final String REGISTRY_NAME = "redisLockTestObservationRegistry";

	private @Nullable ListableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ListableBeanFactory beans) {
			this.beanFactory = beans;
		}
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
		if (registry instanceof ListableBeanFactory beans
				&& beans.getBeanNamesForType(ObservationRegistry.class, true, false).length == 0) {
			registry.registerBeanDefinition(REGISTRY_NAME,
					new RootBeanDefinition(ObservationRegistry.class, ObservationRegistry::create));
		}
	}

	@Override
	public void afterSingletonsInstantiated() {
		ListableBeanFactory beans = this.beanFactory;
		if (beans == null) {
			return;
		}
		LockRecorder recorder = beans.getBean(LockRecorder.class);
		for (ObservationRegistry registry : beans.getBeansOfType(ObservationRegistry.class).values()) {
			registry.observationConfig().observationHandler(recorder.handler());
		}
	}

}
