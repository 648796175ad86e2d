// SPDX-License-Identifier: MIT
// One editor shows every container's code: each container keeps where its code was scrolled to and where
// the cursor stood, and a container shown for the first time starts at the top left (another container's
// horizontal scroll made a short program look blank).
#include "guitest.h"

#include "codeeditor.h"
#include "daemonconnection.h"
#include "runpanel.h"

#include <QJsonObject>

using namespace Cordon::Ui;

class TestEditorView : public QObject
{
    Q_OBJECT

private slots:
    void eachContainerKeepsItsOwnView()
    {
        DaemonConnection connection;
        RunPanel panel(connection);
        panel.resize(700, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        CodeEditor *editor = panel.editor();
        const auto xOffset = [editor] {
            return int(editor->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET));
        };
        const auto show = [&panel](const QString &id) {
            panel.setContainer(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("name"), id}});
        };

        show(QStringLiteral("wide"));
        QString wide;
        for (int line = 0; line < 200; ++line)
            wide += QStringLiteral("x = '%1'  # line %2\n").arg(QString(400, QLatin1Char('w'))).arg(line);
        editor->setText(wide);
        editor->setCursorPosition(150, 300);
        editor->setFirstVisibleLine(140);
        editor->SendScintilla(QsciScintillaBase::SCI_SETXOFFSET, 2400);
        QCOMPARE(xOffset(), 2400);

        show(QStringLiteral("short"));
        editor->setText(QStringLiteral("print('hi')\n"));
        QCOMPARE(xOffset(), 0);
        QCOMPARE(editor->firstVisibleLine(), 0);

        show(QStringLiteral("wide"));
        QCOMPARE(editor->text(), wide);
        QCOMPARE(xOffset(), 2400);
        QCOMPARE(editor->firstVisibleLine(), 140);
        int line = 0, index = 0;
        editor->getCursorPosition(&line, &index);
        QCOMPARE(line, 150);
        QCOMPARE(index, 300);

        show(QStringLiteral("short"));
        QCOMPARE(xOffset(), 0);
        QCOMPARE(editor->text(), QStringLiteral("print('hi')\n"));
    }

    // Tab indents and keeps the focus; Ctrl+Tab, Ctrl+Shift+Tab, or Escape then Tab, move it on, as the
    // editor's description says.
    void theKeyboardLeavesTheEditor()
    {
        DaemonConnection connection;
        RunPanel panel(connection);
        panel.resize(700, 500);
        panel.show();
        QVERIFY(CordonGuiTest::activate(&panel));
        CodeEditor *editor = panel.editor();
        panel.setContainer(QJsonObject{{QStringLiteral("id"), QStringLiteral("keys")},
                                       {QStringLiteral("name"), QStringLiteral("keys")}});
        editor->setText(QString());
        const auto focusInEditor = [editor] {
            QWidget *focus = QApplication::focusWidget();
            return focus && (focus == editor || editor->isAncestorOf(focus));
        };
        const auto press = [](int key, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key(key), modifiers);
        };
        editor->setFocus();
        QTRY_VERIFY(focusInEditor());
        QVERIFY2(editor->accessibleDescription().contains(QStringLiteral("Ctrl+Tab")),
                 qPrintable(editor->accessibleDescription()));

        press(Qt::Key_Tab);
        QVERIFY(focusInEditor());
        QCOMPARE(editor->text(), QStringLiteral("    "));

        press(Qt::Key_Tab, Qt::ControlModifier);
        QVERIFY(!focusInEditor());
        QCOMPARE(editor->text(), QStringLiteral("    "));

        editor->setFocus();
        QTRY_VERIFY(focusInEditor());
        press(Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(!focusInEditor());

        // Escape, then Tab: out. Escape, a key, then Tab: an indent as usual.
        editor->setFocus();
        QTRY_VERIFY(focusInEditor());
        press(Qt::Key_Escape);
        press(Qt::Key_Tab);
        QVERIFY(!focusInEditor());
        QCOMPARE(editor->text(), QStringLiteral("    "));
        editor->setFocus();
        QTRY_VERIFY(focusInEditor());
        press(Qt::Key_Escape);
        press(Qt::Key_End);
        press(Qt::Key_Tab);
        QVERIFY(focusInEditor());
        QCOMPARE(editor->text(), QStringLiteral("        "));
    }
};

CORDON_GUI_TEST_MAIN(TestEditorView)
#include "tst_editorview.moc"
