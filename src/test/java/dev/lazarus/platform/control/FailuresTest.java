package dev.lazarus.platform.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.ejb.EJBException;
import jakarta.jms.JMSRuntimeException;
import java.sql.SQLException;
import java.util.Optional;
import javax.transaction.xa.XAException;
import jakarta.transaction.HeuristicMixedException;
import org.apache.activemq.artemis.api.core.ActiveMQConnectionTimedOutException;
import org.apache.activemq.artemis.api.core.ActiveMQNotConnectedException;
import org.apache.activemq.artemis.api.core.ActiveMQSecurityException;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    void aBrokerThatCannotBeReachedIsNamedThroughTheContainersWrapping() {
        JMSRuntimeException noSession = new JMSRuntimeException("Could not create session");
        noSession.initCause(new ActiveMQNotConnectedException("AMQ219007: Cannot connect to server(s)"));
        assertEquals(Optional.of(Failures.Dependency.BROKER), Failures.unavailableDependency(new EJBException(new RuntimeException(noSession))));
    }

    @Test
    void aJmsFailureThatIsNotAboutTheConnectionIsNoOutage() {
        JMSRuntimeException denied = new JMSRuntimeException("AMQ229032: User: x does not have permission='SEND'");
        denied.initCause(new ActiveMQSecurityException("not allowed"));
        assertFalse(Failures.unavailableDependency(new EJBException(denied)).isPresent());
    }

    @Test
    void aCommitWhoseOutcomeIsUnknownIsNeverCalledAnOutage() {
        Exception heuristic = new HeuristicMixedException("ARJUNA016036: commit on one-phase resource, HEURISTIC_HAZARD");
        heuristic.addSuppressed(new SQLException("terminating connection due to administrator command", "57P01"));
        assertFalse(Failures.unavailableDependency(new EJBException(heuristic)).isPresent());
        assertTrue(Failures.commitOutcomeUnknown(new EJBException(heuristic)), "it is told as an outcome unknown instead");
        assertFalse(Failures.commitOutcomeUnknown(new EJBException(new SQLException("no connection", "08006"))));
    }

    @Test
    void aFailedCommitNamesTheResourceItsSuppressedErrorsBlame() {
        Exception rollback = new IllegalStateException("ARJUNA016053: Could not commit transaction.");
        XAException xa = new XAException(XAException.XAER_RMFAIL);
        xa.initCause(new ActiveMQConnectionTimedOutException("AMQ219014: Timed out after waiting 10000 ms"));
        rollback.addSuppressed(xa);
        assertEquals(Optional.of(Failures.Dependency.BROKER), Failures.unavailableDependency(new EJBException(rollback)));
    }

    @Test
    void aDatabaseWithoutConnectionsIsNamedButAConstraintIsNot() {
        assertEquals(Optional.of(Failures.Dependency.DATABASE), Failures.unavailableDependency(new RuntimeException(new SQLException("refused", "08001"))));
        assertEquals(Optional.of(Failures.Dependency.DATABASE), Failures.unavailableDependency(new SQLException("terminating connection", "57P01")));
        assertFalse(Failures.unavailableDependency(new SQLException("duplicate key", "23505")).isPresent());
        assertFalse(Failures.unavailableDependency(new IllegalStateException("a bug")).isPresent());
    }

    @Test
    void aDuplicateKeyIsRecognisedByItsSqlState() {
        assertTrue(Failures.isDuplicateKey(new EJBException(new RuntimeException(new SQLException("duplicate key", "23505")))));
        assertFalse(Failures.isDuplicateKey(new SQLException("refused", "08001")));
        assertTrue(Failures.isLockTimeout(new EJBException(new RuntimeException(new SQLException("timeout trying to lock", "HYT00")))));
        assertFalse(Failures.isLockTimeout(new SQLException("duplicate key", "23505")));
    }
}
