// SPDX-License-Identifier: MIT
// An allowlist editor: a field to type an entry with the daemon's verdict under it as one types
// (network.check, debounced), Add (Return) or Replace when editing, Edit (F2, double-click), Remove (Del), a
// Presets menu, and the list with every entry marked valid, refused or outside the organisation allowlist.
// The network panel, the create dialog and the organisation editor all use it: one editor, one validator (the
// daemon's).
#pragma once

#include <QJsonArray>
#include <QTimer>
#include <QWidget>

class QColor;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QToolButton;

namespace Cordon {
class Error;
}

namespace Cordon::Ui {

class AllowlistModel;

// Shows text in a note label (hidden while empty), in colour when one is given; the editors' verdicts and the
// panels' messages look alike this way.
void showNote(QLabel *label, const QString &text, const QColor &colour = QColor());
// The daemon's message and, on a line of its own, its hint.
QString errorWithHint(const Error &error);
class DaemonConnection;

class AllowlistEditor final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AllowlistEditor)

public:
    enum class Mode
    {
        Container,    // entries outside the organisation allowlist are marked and make the list unacceptable
        Organisation, // the organisation list itself: only validity counts
    };

    struct Preset
    {
        QString name;
        QStringList hosts;
    };
    // Python packages, npm registry, GitHub: the hosts their clients actually contact.
    static QList<Preset> presets();

    // How long typing may pause before the entry is sent to the daemon for checking.
    static constexpr int CheckDelayMs = 250;

    AllowlistEditor(DaemonConnection &connection, Mode mode, QWidget *parent = nullptr);

    // Replaces the list (no entriesChanged) and checks it.
    void setEntries(const QJsonArray &entries);
    QJsonArray entries() const;
    // Adds the entries not yet in the list, in order, and returns how many were added.
    int addEntries(const QJsonArray &entries);
    // Asks the daemon again, e.g. after the organisation list changed.
    void recheck();

    // Puts a button of the user's at the right end of the Edit and Remove row: Apply or Save beside them
    // takes no line of its own.
    void addTrailingButton(QPushButton *button);

    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }
    // Every entry answered by the daemon and acceptable for the mode, and no answer outstanding.
    bool isAcceptable() const;
    bool isChecking() const;
    // Why the list is not acceptable, in a sentence; empty when it is.
    QString problemSummary() const;

    AllowlistModel *model() const { return m_model; }
    QListView *view() const { return m_view; }
    QLineEdit *entryField() const { return m_field; }
    // The verdict on what is typed in the field (plain text).
    QString fieldMessage() const;
    // What the selected entry allows, in words, with what it reaches beyond them (a wildcard's depth) and a
    // warning for private addresses; empty when nothing valid is selected.
    QString ruleMeaning() const;

    // Adds (or, while editing, replaces) the typed entry once the daemon has accepted it.
    void submitField();
    void editRow(int row);
    void removeSelected();

Q_SIGNALS:
    // The user changed the list (not setEntries()).
    void entriesChanged();
    // isAcceptable() or problemSummary() may have changed.
    void validityChanged();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    // The verdict under the field, in its reserved place.
    void setFieldMessage(const QString &text, const QColor &colour);
    void buildPresetMenu();
    void scheduleListCheck();
    void checkList();
    void scheduleFieldCheck();
    void checkField();
    void cancelEdit();
    void updateButtons();
    QJsonArray othersThanEdited() const;

    DaemonConnection &m_connection;
    Mode m_mode;
    AllowlistModel *m_model;
    QLineEdit *m_field;
    QLabel *m_fieldMessage;
    QPushButton *m_addButton;
    QToolButton *m_presetButton;
    QListView *m_view;
    QPushButton *m_editButton;
    QPushButton *m_removeButton;
    QLabel *m_summary;
    QLabel *m_meaning;
    QHBoxLayout *m_buttonRow;
    QTimer m_listTimer;
    QTimer m_fieldTimer;
    quint64 m_listGeneration = 0;
    quint64 m_fieldGeneration = 0;
    bool m_listPending = false;
    bool m_fieldPending = false;
    bool m_submitWhenChecked = false;
    // The field's last verdict: the entry it was for, and whether it may be added.
    QJsonValue m_fieldEntry;
    bool m_fieldAcceptable = false;
    int m_editingRow = -1;
    bool m_readOnly = false;
};

} // namespace Cordon::Ui
