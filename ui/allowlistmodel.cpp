// SPDX-License-Identifier: MIT
#include "allowlistmodel.h"

#include "core/policywords.h"
#include "messagetone.h"
#include "paletteicon.h"

#include <QGuiApplication>
#include <QJsonDocument>
#include <QPalette>
#include <QRegularExpression>

namespace Cordon::Ui {

namespace {

// The parser's messages start with where the entry was in the request ("allowed_domains[0]: "); in the
// editor the entry is right there, so the place is left out.
QString withoutPath(const QString &message)
{
    // "allowed_domains[0]: ..." -> "...", "allowed_domains[0].ports[0]: ..." -> "ports[0]: ..."
    static const QRegularExpression EntryPath(QStringLiteral("^allowed_domains\\[\\d+\\](: |\\.)"));
    return QString(message).remove(EntryPath);
}

// A rule object that says nothing a string could not: one port at most, no methods, paths or private
// addresses.
bool hasStringForm(const QJsonObject &rule)
{
    return rule.value(QStringLiteral("ports")).toArray().size() <= 1 &&
           rule.value(QStringLiteral("methods")).toArray().isEmpty() &&
           rule.value(QStringLiteral("path_prefixes")).toArray().isEmpty() &&
           !rule.value(QStringLiteral("allow_private_addresses")).toBool();
}

QString hostWithPorts(const QJsonObject &rule)
{
    QStringList ports;
    for (const QJsonValue &port : rule.value(QStringLiteral("ports")).toArray())
        ports.append(QString::number(port.toInteger()));
    const QString domain = rule.value(QStringLiteral("domain")).toString();
    return ports.isEmpty() ? domain : domain + QLatin1Char(':') + ports.join(QLatin1Char(','));
}

QStringList strings(const QJsonValue &array)
{
    QStringList out;
    for (const QJsonValue &value : array.toArray())
        out.append(value.toString());
    return out;
}

} // namespace

AllowlistModel::AllowlistModel(QObject *parent) : QAbstractListModel(parent) {}

int AllowlistModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant AllowlistModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return displayText(row.entry);
    case Qt::ToolTipRole:
        switch (row.status) {
        case Status::Valid:
            return tr("Allows %1").arg(PolicyWords::rule(row.rule));
        case Status::Invalid:
            return tr("Refused: %1").arg(row.message);
        case Status::Outside:
            return tr("Outside the organisation allowlist, so it cannot be applied: %1").arg(row.message);
        case Status::Unchecked:
            return tr("Being checked by cordond…");
        }
        return {};
    case Qt::AccessibleDescriptionRole:
        return data(index, Qt::ToolTipRole);
    case Qt::DecorationRole:
        switch (row.status) {
        case Status::Valid:
            return paletteIcon(QStringLiteral("outcome-ok"));
        case Status::Invalid:
            return paletteIcon(QStringLiteral("outcome-failed"), problemColour(QGuiApplication::palette()));
        case Status::Outside:
            return paletteIcon(QStringLiteral("outcome-failed"), outsideColour(QGuiApplication::palette()));
        case Status::Unchecked:
            return paletteIcon(QStringLiteral("outcome-running"));
        }
        return {};
    case Qt::ForegroundRole:
        if (row.status == Status::Invalid)
            return problemColour(QGuiApplication::palette());
        if (row.status == Status::Outside)
            return outsideColour(QGuiApplication::palette());
        return {};
    case StatusRole:
        return int(row.status);
    case MessageRole:
        return row.message;
    case EntryRole:
        return QVariant::fromValue(row.entry);
    default:
        return {};
    }
}

void AllowlistModel::setEntries(const QJsonArray &entries)
{
    beginResetModel();
    m_rows.clear();
    for (const QJsonValue &entry : entries)
        m_rows.append(Row{entry, Status::Unchecked, {}, {}});
    endResetModel();
}

QJsonArray AllowlistModel::entries() const
{
    QJsonArray out;
    for (const Row &row : m_rows)
        out.append(row.entry);
    return out;
}

QJsonValue AllowlistModel::entry(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).entry : QJsonValue();
}

void AllowlistModel::append(const QJsonValue &entry)
{
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
    m_rows.append(Row{entry, Status::Unchecked, {}, {}});
    endInsertRows();
}

void AllowlistModel::replace(int row, const QJsonValue &entry)
{
    if (row < 0 || row >= m_rows.size())
        return;
    m_rows[row] = Row{entry, Status::Unchecked, {}, {}};
    Q_EMIT dataChanged(index(row), index(row));
}

void AllowlistModel::remove(int row)
{
    if (row < 0 || row >= m_rows.size())
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
}

int AllowlistModel::find(const QJsonValue &entry) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        // The same entry, or the same host written the way the daemon wrote the other one back.
        const Row &row = m_rows.at(i);
        if (row.entry == entry || editText(row.entry) == editText(entry) ||
            (!row.rule.isEmpty() && editText(row.rule) == editText(entry)))
            return int(i);
    }
    return -1;
}

bool AllowlistModel::applyCheck(const QJsonArray &askedFor, const QJsonArray &answers)
{
    if (askedFor != entries() || answers.size() != m_rows.size())
        return false;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        const QJsonObject answer = answers.at(i).toObject();
        Row &row = m_rows[i];
        row.rule = answer.value(QStringLiteral("rule")).toObject();
        if (!answer.value(QStringLiteral("ok")).toBool()) {
            row.status = Status::Invalid;
            row.message = refusal(answer);
        } else if (answer.contains(QStringLiteral("outside_organisation"))) {
            row.status = Status::Outside;
            row.message = answer.value(QStringLiteral("outside_organisation"))
                              .toObject()
                              .value(QStringLiteral("message"))
                              .toString();
        } else {
            row.status = Status::Valid;
            row.message.clear();
        }
    }
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1));
    return true;
}

QJsonObject AllowlistModel::rule(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).rule : QJsonObject();
}

AllowlistModel::Status AllowlistModel::status(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).status : Status::Unchecked;
}

QString AllowlistModel::message(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).message : QString();
}

int AllowlistModel::problemCount(bool outsideAllowed) const
{
    int count = 0;
    for (const Row &row : m_rows) {
        if (row.status == Status::Invalid || (row.status == Status::Outside && !outsideAllowed))
            ++count;
    }
    return count;
}

bool AllowlistModel::allChecked() const
{
    return std::none_of(m_rows.begin(), m_rows.end(),
                        [](const Row &row) { return row.status == Status::Unchecked; });
}

QString AllowlistModel::refusal(const QJsonObject &answer)
{
    return withoutPath(
        answer.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString());
}

QString AllowlistModel::displayText(const QJsonValue &entry)
{
    if (entry.isString())
        return entry.toString();
    if (!entry.isObject())
        return QString::fromUtf8(QJsonDocument(QJsonArray{entry}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    const QJsonObject rule = entry.toObject();
    QStringList parts{hostWithPorts(rule)};
    if (const QStringList methods = strings(rule.value(QStringLiteral("methods"))); !methods.isEmpty())
        parts.append(methods.join(QStringLiteral(", ")));
    if (const QStringList paths = strings(rule.value(QStringLiteral("path_prefixes"))); !paths.isEmpty())
        parts.append(paths.join(QStringLiteral(", ")));
    if (rule.value(QStringLiteral("allow_private_addresses")).toBool())
        parts.append(tr("private addresses allowed"));
    return parts.join(QStringLiteral(" · "));
}

QString AllowlistModel::editText(const QJsonValue &entry)
{
    if (entry.isString())
        return entry.toString();
    if (entry.isObject() && hasStringForm(entry.toObject()))
        return hostWithPorts(entry.toObject());
    return QString::fromUtf8(QJsonDocument(entry.toObject()).toJson(QJsonDocument::Compact));
}

QJsonValue AllowlistModel::parseEditText(const QString &text, QString *problem)
{
    const QString trimmed = text.trimmed();
    if (!trimmed.startsWith(QLatin1Char('{')))
        return text; // untrimmed: the daemon says what is wrong with surrounding spaces
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(trimmed.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        if (problem)
            *problem =
                tr("A rule object must be JSON, as in {\"domain\": \"example.com\", \"ports\": [443]}: %1")
                    .arg(error.errorString());
        return QJsonValue(QJsonValue::Undefined);
    }
    return document.object();
}

QColor AllowlistModel::problemColour(const QPalette &palette)
{
    return toneColours(Tone::Failure, palette).accent;
}

QColor AllowlistModel::outsideColour(const QPalette &palette)
{
    return toneColours(Tone::Warning, palette).accent;
}

} // namespace Cordon::Ui
