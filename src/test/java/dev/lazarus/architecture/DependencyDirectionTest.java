package dev.lazarus.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The features lean on each other one way only, so a reader finds each rule in one feature:
 * {@code platform} ← {@code events} ← {@code pipeline} ← {@code deadletter} ← {@code sweep}, {@code outage}, {@code admin}; {@code demo} is a pipeline
 * like a user's and knows nothing but {@code pipeline}; {@code webhooks} is a pipeline too, and reads the events. Where a lower feature needs what a higher one does (a failed
 * step's dead letter, a run's dead letter on its view), it owns an interface and the higher feature implements it.
 */
@AnalyzeClasses(packages = "dev.lazarus", importOptions = ImportOption.DoNotIncludeTests.class)
class DependencyDirectionTest {

    @ArchTest
    static final ArchRule platformKnowsNoFeature = noClasses().that().resideInAPackage("dev.lazarus.platform..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.pipeline..", "dev.lazarus.deadletter..",
                    "dev.lazarus.sweep..", "dev.lazarus.outage..", "dev.lazarus.admin..", "dev.lazarus.demo..");

    /** Events are told by every feature that changes something, so they know none of them. */
    @ArchTest
    static final ArchRule eventsKnowOnlyThePlatform = noClasses().that().resideInAPackage("dev.lazarus.events..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.pipeline..", "dev.lazarus.deadletter..", "dev.lazarus.sweep..",
                    "dev.lazarus.outage..", "dev.lazarus.admin..", "dev.lazarus.demo..", "dev.lazarus.webhooks..");

    /** Webhooks deliver through a pipeline of their own; they know the events and the pipelines, and no other feature. */
    @ArchTest
    static final ArchRule webhooksKnowEventsAndPipelines = noClasses().that().resideInAPackage("dev.lazarus.webhooks..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.deadletter..", "dev.lazarus.sweep..",
                    "dev.lazarus.outage..", "dev.lazarus.admin..", "dev.lazarus.demo..");

    @ArchTest
    static final ArchRule onlyTheAdminPagesKnowTheWebhooks = noClasses().that().resideOutsideOfPackages("dev.lazarus.webhooks..",
                    "dev.lazarus.admin..", "dev.lazarus.observability..")
            .should().dependOnClassesThat().resideInAPackage("dev.lazarus.webhooks..");

    @ArchTest
    static final ArchRule pipelineKnowsOnlyThePlatform = noClasses().that().resideInAPackage("dev.lazarus.pipeline..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.deadletter..", "dev.lazarus.webhooks..", "dev.lazarus.sweep..",
                    "dev.lazarus.outage..", "dev.lazarus.admin..", "dev.lazarus.demo..");

    @ArchTest
    static final ArchRule deadLettersDoNotKnowWhoDetectsOrShowsThem = noClasses().that().resideInAPackage("dev.lazarus.deadletter..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.sweep..", "dev.lazarus.outage..", "dev.lazarus.admin..",
                    "dev.lazarus.demo..");

    @ArchTest
    static final ArchRule outageControlKnowsNoPage = noClasses().that().resideInAPackage("dev.lazarus.outage..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.admin..", "dev.lazarus.sweep..", "dev.lazarus.demo..");

    /** What an operator watches reads every feature, and no feature reads it: nothing else changes when a gauge does. */
    @ArchTest
    static final ArchRule observabilityIsALeaf = noClasses().that().resideOutsideOfPackage("dev.lazarus.observability..")
            .should().dependOnClassesThat().resideInAPackage("dev.lazarus.observability..");

    /**
     * Entities hold their invariants themselves and call no control (their change listeners are declared in
     * META-INF/orm.xml, not on them): a rule about an entity is found in the entity.
     */
    @ArchTest
    static final ArchRule entitiesCallNoControl = noClasses().that().resideInAPackage("dev.lazarus..entity..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus..control..", "dev.lazarus..boundary..");

    @ArchTest
    static final ArchRule theDemoIsAPipelineLikeAnyOther = noClasses().that().resideInAPackage("dev.lazarus.demo..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.lazarus.deadletter..", "dev.lazarus.sweep..", "dev.lazarus.outage..",
                    "dev.lazarus.admin..");
}
