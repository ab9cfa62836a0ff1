package dev.lazarus.it;

import org.jboss.as.arquillian.api.ServerSetupTask;
import org.jboss.as.arquillian.container.ManagementClient;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;

/**
 * Lets Lazarus hold the demo's fetch step by itself for the deployment of one test class (before it is deployed, and
 * taken away after it is undeployed): the test server holds no step by itself otherwise (arquillian.xml), because
 * other tests fail steps in bulk on purpose, and a step held by their failures would keep the runs of the tests after
 * them waiting (and the sweeper leaves runs waiting at a held step alone).
 */
public class FetchHeldByItself implements ServerSetupTask {

    static final String PROPERTY = "lazarus.hold.document-ingestion.fetch.enabled";

    @Override
    public void setup(ManagementClient client, String containerId) throws Exception {
        ModelNode add = Operations.createAddOperation(Operations.createAddress("system-property", PROPERTY));
        add.get("value").set("true");
        execute(client, add);
    }

    @Override
    public void tearDown(ManagementClient client, String containerId) throws Exception {
        execute(client, Operations.createRemoveOperation(Operations.createAddress("system-property", PROPERTY)));
    }

    private static void execute(ManagementClient client, ModelNode operation) throws Exception {
        ModelNode result = client.getControllerClient().execute(operation);
        if (!Operations.isSuccessfulOutcome(result)) {
            throw new IllegalStateException(operation + " failed: " + Operations.getFailureDescription(result));
        }
    }
}
