// SPDX-License-Identifier: MIT
// An allowlist being edited: its entries as the user gave them (strings, or rule objects as the daemon's
// canonical form writes them) and, per entry, what the daemon's network.check said of it: valid, invalid
// (with the parser's words) or valid but outside the organisation list. The model never judges an entry
// itself: the daemon's parser is the only validator (docs/network.md), so the workbench cannot disagree with
// it.
#pragma once

#include <QAbstractListModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

class QPalette;

namespace Cordon::Ui {

class AllowlistModel final : public QAbstractListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AllowlistModel)

public:
    enum class Status
    {
        Unchecked, // not yet answered by the daemon (typed a moment ago, or no connection)
        Valid,
        Invalid, // the daemon's parser refused it
        Outside, // valid, but the organisation list does not cover it
    };
    Q_ENUM(Status)

    enum Role
    {
        StatusRole = Qt::UserRole + 1, // Status as int
        MessageRole,                   // why it is invalid or outside, in the daemon's words
        EntryRole,                     // the entry as a QJsonValue (string or object)
    };

    explicit AllowlistModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    void setEntries(const QJsonArray &entries);
    QJsonArray entries() const;
    QJsonValue entry(int row) const;
    void append(const QJsonValue &entry);
    void replace(int row, const QJsonValue &entry);
    void remove(int row);
    // The first row whose entry names this rule (same text, or same canonical rule once checked); -1 if none.
    int find(const QJsonValue &entry) const;

    // Applies a network.check answer for exactly these entries (the model's entries at the time of asking);
    // answers for another list are ignored. Returns whether they were applied.
    bool applyCheck(const QJsonArray &askedFor, const QJsonArray &answers);
    Status status(int row) const;
    // The daemon's canonical form of a Valid or Outside entry; empty before it answered or when refused.
    QJsonObject rule(int row) const;
    QString message(int row) const;
    // Rows that are not Valid, in order; with `outsideAllowed` the Outside ones do not count.
    int problemCount(bool outsideAllowed) const;
    bool allChecked() const;

    // Why a network.check answer refused its entry, without the request's field path in front.
    static QString refusal(const QJsonObject &answer);
    // "pypi.org", "localhost:8080 · private addresses allowed", "api.example.org:443 · GET, HEAD · /v1/": an
    // entry in one line for people.
    static QString displayText(const QJsonValue &entry);
    // What the entry field shows for editing: the string form, or compact JSON for a rule that has no string
    // form (methods, paths, several ports, private addresses).
    static QString editText(const QJsonValue &entry);
    // The reverse: text starting with "{" is a rule object, anything else a string entry. An unparsable
    // object gives an undefined value and the reason in `problem`.
    static QJsonValue parseEditText(const QString &text, QString *problem);
    // Colours that read on light and dark palettes: refusals in red, entries outside the organisation in
    // amber.
    static QColor problemColour(const QPalette &palette);
    static QColor outsideColour(const QPalette &palette);

private:
    struct Row
    {
        QJsonValue entry;
        Status status = Status::Unchecked;
        QString message;
        QJsonObject rule; // canonical form once valid
    };
    QList<Row> m_rows;
};

} // namespace Cordon::Ui
